#include "shmtrain/comm/reduce_kernels.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#if defined(__AVX__)
#include <immintrin.h>
#endif

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace shmtrain::comm {
namespace {

// A chunk is reduced into a stack buffer that stays in L1, then stored to every destination,
// so each source and destination byte crosses the memory bus once.
constexpr std::size_t kChunk = 2048;
// Below this many floats per thread, splitting costs more than it saves.
constexpr std::size_t kMinFloatsPerThread = std::size_t{1} << 16;

void sum_chunk(float* __restrict acc, const float* const* src, int sources, std::size_t n) {
  const float* __restrict s0 = src[0];
  if (sources == 1) {
    for (std::size_t i = 0; i < n; ++i) acc[i] = s0[i];
    return;
  }
  const float* __restrict s1 = src[1];
  for (std::size_t i = 0; i < n; ++i) acc[i] = s0[i] + s1[i];
  for (int s = 2; s < sources; ++s) {
    const float* __restrict sk = src[s];
    for (std::size_t i = 0; i < n; ++i) acc[i] += sk[i];
  }
}

void max_chunk(float* __restrict acc, const float* const* src, int sources, std::size_t n) {
  const float* __restrict s0 = src[0];
  for (std::size_t i = 0; i < n; ++i) acc[i] = s0[i];
  for (int s = 1; s < sources; ++s) {
    const float* __restrict sk = src[s];
    for (std::size_t i = 0; i < n; ++i) acc[i] = sk[i] > acc[i] ? sk[i] : acc[i];
  }
}

// Results larger than this (bytes stored per call, all destinations) go around the cache with
// non-temporal stores: they would evict the sources before anyone reads them, and a regular
// store first reads the line it overwrites (one extra memory pass per destination).
constexpr std::size_t kStreamBytes = std::size_t{32} << 20;

void store(float* dst, const float* acc, std::size_t n, bool stream) {
#if defined(__AVX512F__)
  if (stream && reinterpret_cast<std::uintptr_t>(dst) % 64 == 0) {
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) _mm512_stream_ps(dst + i, _mm512_load_ps(acc + i));
    for (; i < n; ++i) dst[i] = acc[i];
    return;
  }
#elif defined(__AVX__)
  // A portable build (x86-64-v3, the image's): the same lines, 32 bytes a store.
  if (stream && reinterpret_cast<std::uintptr_t>(dst) % 32 == 0) {
    std::size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_stream_ps(dst + i, _mm256_load_ps(acc + i));
    for (; i < n; ++i) dst[i] = acc[i];
    return;
  }
#else
  (void)stream;
#endif
  std::memcpy(dst, acc, n * sizeof(float));
}

void reduce_serial(float* const* dst, int destinations, const float* const* src, int sources, std::size_t begin,
                   std::size_t end, ReduceOp op, bool stream) {
  alignas(64) float acc[kChunk];
  const float* shifted[64];
  const float* const* sources_at = src;
  std::vector<const float*> many;
  for (std::size_t offset = begin; offset < end; offset += kChunk) {
    const std::size_t n = std::min(kChunk, end - offset);
    if (sources <= 64) {
      for (int s = 0; s < sources; ++s) shifted[s] = src[s] + offset;
      sources_at = shifted;
    } else {
      many.resize(static_cast<std::size_t>(sources));
      for (int s = 0; s < sources; ++s) many[static_cast<std::size_t>(s)] = src[s] + offset;
      sources_at = many.data();
    }
    if (op == ReduceOp::max) {
      max_chunk(acc, sources_at, sources, n);
    } else {
      sum_chunk(acc, sources_at, sources, n);
      if (op == ReduceOp::avg) {
        const auto divisor = static_cast<float>(sources);
        for (std::size_t i = 0; i < n; ++i) acc[i] /= divisor;
      }
    }
    for (int d = 0; d < destinations; ++d) store(dst[d] + offset, acc, n, stream);
  }
#if defined(__AVX__)
  // Streaming stores are weakly ordered: they must be visible before the caller's next step
  // publishes them with a release store, and a release store does not wait for them.
  if (stream) _mm_sfence();
#endif
}

template <typename Body>
void split(std::size_t count, int threads, Body body) {
  const std::size_t parts = std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)),
                                                  count / kMinFloatsPerThread);
  if (parts <= 1) {
    body(0, count);
    return;
  }
  // Part boundaries on chunk multiples: the split never changes which elements meet.
  const std::size_t per_part = (count / parts + kChunk - 1) / kChunk * kChunk;
  tbb::parallel_for(std::size_t{0}, parts, [&](std::size_t p) {
    const std::size_t begin = std::min(count, p * per_part);
    const std::size_t end = p + 1 == parts ? count : std::min(count, begin + per_part);
    if (begin < end) body(begin, end);
  });
}

}  // namespace

void reduce_into(float* const* dst, int destinations, const float* const* src, int sources, std::size_t count,
                 ReduceOp op, int threads) {
  if (count == 0 || sources < 1) return;
  const bool stream = count * sizeof(float) * static_cast<std::size_t>(destinations) >= kStreamBytes;
  split(count, threads, [&](std::size_t begin, std::size_t end) {
    reduce_serial(dst, destinations, src, sources, begin, end, op, stream);
  });
}

void copy_floats(float* dst, const float* src, std::size_t count, int threads) {
  if (count == 0 || dst == src) return;
  split(count, threads, [&](std::size_t begin, std::size_t end) {
    std::memcpy(dst + begin, src + begin, (end - begin) * sizeof(float));
  });
}

}  // namespace shmtrain::comm
