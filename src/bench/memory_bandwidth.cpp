#include "shmtrain/bench/memory_bandwidth.hpp"

#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>

#include <tbb/parallel_for.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/cpu_features.hpp"

namespace shmtrain::bench {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kAlign = 64;
constexpr std::size_t kLineFloats = kAlign / sizeof(float);
constexpr double kRunSeconds = 0.02;  // passes per run: about this long, so a run is not its overhead

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using Array = std::unique_ptr<float[], FreeDeleter>;

Array aligned_floats(std::size_t floats) {
  void* p = std::aligned_alloc(kAlign, std::max(floats, kLineFloats) * sizeof(float));
  if (p == nullptr) throw Error("bench: cannot allocate the bandwidth arrays");
  return Array(static_cast<float*>(p));
}

// c = a + b over whole cache lines, 16 floats a step.
__attribute__((target("avx512f"))) void add_avx512(float* c, const float* a, const float* b, std::size_t n,
                                                   bool streaming) {
  if (streaming) {
    for (std::size_t i = 0; i < n; i += 16)
      _mm512_stream_ps(c + i, _mm512_add_ps(_mm512_load_ps(a + i), _mm512_load_ps(b + i)));
    _mm_sfence();
  } else {
    for (std::size_t i = 0; i < n; i += 16)
      _mm512_store_ps(c + i, _mm512_add_ps(_mm512_load_ps(a + i), _mm512_load_ps(b + i)));
  }
}

void add_scalar(float* __restrict c, const float* __restrict a, const float* __restrict b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

// Each of `parts` threads passes `passes` times over its own line-aligned part.
void run_passes(float* c, const float* a, const float* b, std::size_t n, std::size_t parts, int passes,
                bool streaming, bool avx512) {
  tbb::parallel_for(std::size_t{0}, parts, [&](std::size_t p) {
    const std::size_t lines = n / kLineFloats;
    const std::size_t begin = lines * p / parts * kLineFloats;
    const std::size_t end = lines * (p + 1) / parts * kLineFloats;
    for (int pass = 0; pass < passes; ++pass) {
      if (avx512) {
        add_avx512(c + begin, a + begin, b + begin, end - begin, streaming);
      } else {
        add_scalar(c + begin, a + begin, b + begin, end - begin);
      }
    }
  });
}

}  // namespace

const BandwidthLevel& MemoryBandwidth::level_for(std::size_t bytes) const {
  const BandwidthLevel* chosen = &levels.front();
  for (const BandwidthLevel& level : levels) {
    if (level.working_set <= bytes) chosen = &level;
  }
  return *chosen;
}

std::vector<std::size_t> bandwidth_ladder() {
  constexpr std::size_t kib = 1024;  // lower case: allreduce_bench.cpp's kKiB may share its unity file
  return {192 * kib, 768 * kib, 3 * kib * kib, 12 * kib * kib, 48 * kib * kib, 768 * kib * kib};
}

BandwidthLevel measure_add_bandwidth(comm::Communicator& communicator, int threads, std::size_t working_set,
                                     bool streaming, int runs) {
  const auto P = static_cast<std::size_t>(communicator.size());
  const std::size_t parts = static_cast<std::size_t>(std::max(threads, 1));
  // Each thread's part a whole number of cache lines.
  const std::size_t floats =
      std::max<std::size_t>(working_set / (3 * P * sizeof(float)) / (parts * kLineFloats), 1) * parts *
      kLineFloats;
  const Array a = aligned_floats(floats), b = aligned_floats(floats), c = aligned_floats(floats);
  // First touch by the worker's own threads, so the pages sit by its cores.
  tbb::parallel_for(std::size_t{0}, floats, [&](std::size_t i) {
    a[i] = static_cast<float>(i & 1023u);
    b[i] = 1.0f;
    c[i] = 0.0f;
  });
  const bool avx512 = tensor::cpu_features().avx512f;
  const double bytes_per_pass = 3.0 * static_cast<double>(floats) * sizeof(float);

  // Passes per run from a timed one, agreed on by all workers (the largest count).
  const auto start = Clock::now();
  run_passes(c.get(), a.get(), b.get(), floats, parts, 1, streaming, avx512);
  float one = static_cast<float>(std::chrono::duration<double>(Clock::now() - start).count());
  communicator.allreduce({&one, 1}, comm::ReduceOp::max);
  float passes = std::max(1.0f, static_cast<float>(kRunSeconds / std::max(one, 1e-9f)));
  communicator.allreduce({&passes, 1}, comm::ReduceOp::max);

  double best = 0;
  for (int run = 0; run < runs; ++run) {
    communicator.barrier();
    const auto t0 = Clock::now();
    run_passes(c.get(), a.get(), b.get(), floats, parts, static_cast<int>(passes), streaming, avx512);
    float slowest = static_cast<float>(std::chrono::duration<double>(Clock::now() - t0).count());
    communicator.allreduce({&slowest, 1}, comm::ReduceOp::max);
    best = std::max(best, bytes_per_pass * passes * static_cast<double>(P) / slowest * 1e-9);
  }
  return {3 * floats * sizeof(float) * P, best, streaming};
}

MemoryBandwidth measure_memory_bandwidth(comm::Communicator& communicator, int threads) {
  MemoryBandwidth result;
  for (const std::size_t working_set : bandwidth_ladder()) {
    const BandwidthLevel plain = measure_add_bandwidth(communicator, threads, working_set, false);
    const BandwidthLevel streamed = measure_add_bandwidth(communicator, threads, working_set, true);
    result.levels.push_back(streamed.gbps > plain.gbps ? streamed : plain);
  }
  return result;
}

}  // namespace shmtrain::bench
