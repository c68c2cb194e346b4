// allreduce of bf16 buffers (--ddp_bf16_grads), reduce-scatter + all-gather fused into one
// pass, zero copy: allreduce_reduce_scatter.cpp's protocol over 2-byte elements.
//
// Terms: P ranks; buffers B_0 .. B_{P-1} of n bf16 values each, all in the segment; block b
// = [b * w, min((b + 1) * w, n)) with w = ceil(n / P) rounded up to a cache line (32 values).
//
// Protocol:
//   1. step, publishing where B_r lives (its segment offset, or none); if any rank's buffer is
//      not in the segment every rank returns false (they all see the same offsets);
//   2. rank r sums block r of B_0, B_1, ..., B_{P-1} in float, in rank order (divides by P
//      for avg), rounds once to bf16 and stores the result into block r of every B_q;
//   3. step: every block of every buffer holds the result.
//
// Each rank reads n values and writes n: half the bytes of the float all-reduce.
#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "shmtrain/comm/shm/algorithms.hpp"
#include "shmtrain/comm/collective_tag.hpp"
#include "shmtrain/tensor/cpu_features.hpp"

namespace shmtrain::comm {
namespace {

constexpr std::size_t kLineValues = kCacheLine / sizeof(bf16);

// avg divides, as the float all-reduce does (comm/reduce_kernels.cpp).
float finish(float sum, ReduceOp op, float count) { return op == ReduceOp::avg ? sum / count : sum; }

void reduce_scalar(const std::vector<bf16*>& buffers, std::size_t begin, std::size_t end, ReduceOp op, float count) {
  for (std::size_t i = begin; i < end; ++i) {
    float acc = to_float(buffers[0][i]);
    for (std::size_t q = 1; q < buffers.size(); ++q) {
      const float v = to_float(buffers[q][i]);
      acc = op == ReduceOp::max ? std::max(acc, v) : acc + v;
    }
    const bf16 out = to_bf16(finish(acc, op, count));
    for (bf16* b : buffers) b[i] = out;
  }
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) __m512 load16(const bf16* p, __mmask16 mask) {
  const __m256i raw = _mm256_maskz_loadu_epi16(mask, p);
  // The zero-masked forms: GCC 12 warns (falsely) about the undefined vector inside the plain ones.
  const __m512i wide = _mm512_maskz_cvtepu16_epi32(static_cast<__mmask16>(0xffff), raw);
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(static_cast<__mmask16>(0xffff), wide, 16));
}

// The same sums 16 values at a time; VCVTNEPS2BF16 rounds as to_bf16 does.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void reduce_avx512(const std::vector<bf16*>& buffers,
                                                                                  std::size_t begin, std::size_t end,
                                                                                  ReduceOp op, float count) {
  const __m512 divisor = _mm512_set1_ps(count);
  for (std::size_t i = begin; i < end; i += 16) {
    const __mmask16 mask = end - i >= 16 ? static_cast<__mmask16>(0xffff)
                                         : static_cast<__mmask16>((1u << (end - i)) - 1u);
    __m512 acc = load16(buffers[0] + i, mask);
    for (std::size_t q = 1; q < buffers.size(); ++q) {
      const __m512 v = load16(buffers[q] + i, mask);
      acc = op == ReduceOp::max ? _mm512_maskz_max_ps(static_cast<__mmask16>(0xffff), acc, v) : _mm512_add_ps(acc, v);
    }
    if (op == ReduceOp::avg) acc = _mm512_div_ps(acc, divisor);
    const __m256bh rounded = _mm512_cvtneps_pbh(acc);
    for (bf16* b : buffers) _mm256_mask_storeu_epi16(b + i, mask, reinterpret_cast<const __m256i&>(rounded));
  }
}

}  // namespace

bool allreduce_bf16_reduce_scatter(ShmTransport& transport, std::span<bf16> data, ReduceOp op) {
  const auto P = static_cast<std::size_t>(transport.size());
  const auto r = static_cast<std::size_t>(transport.rank());
  const std::uint64_t tag = make_tag(Collective::allreduce_bf16, data.size(), op);
  // The arena is addressed in floats: a bf16 buffer at a 4-byte boundary is (n + 1) / 2 of them.
  const bool aligned = reinterpret_cast<std::uintptr_t>(data.data()) % sizeof(float) == 0;
  const std::uint64_t own_offset =
      aligned ? transport.arena_offset_of(reinterpret_cast<const float*>(data.data()), (data.size() + 1) / 2)
                    .value_or(kNoBuffer)
              : kNoBuffer;
  transport.step(tag, own_offset);
  std::vector<bf16*> buffers(P);
  for (std::size_t q = 0; q < P; ++q) {
    const std::uint64_t offset = transport.peer_buffer_offset(static_cast<int>(q));
    if (offset == kNoBuffer) return false;
    buffers[q] = reinterpret_cast<bf16*>(transport.at_offset(offset));
  }
  const std::size_t width = ((data.size() + P - 1) / P + kLineValues - 1) / kLineValues * kLineValues;
  const std::size_t begin = std::min(data.size(), r * width);
  const std::size_t end = std::min(data.size(), begin + width);
  const auto count = static_cast<float>(P);
  const CpuFeatures& cpu = cpu_features();
  if (cpu.avx512_core() && cpu.avx512_bf16) {
    reduce_avx512(buffers, begin, end, op, count);
  } else {
    reduce_scalar(buffers, begin, end, op, count);
  }
  transport.step(tag);
  return true;
}

}  // namespace shmtrain::comm
