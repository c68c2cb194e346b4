// The bf16 reduction (--ddp_bf16_grads): the shared-memory pass and the MPI exchange between
// hosts both add bf16 values through this, so both round alike.
#include <immintrin.h>

#include <algorithm>

#include "shmtrain/comm/reduce_kernels.hpp"
#include "shmtrain/tensor/cpu_features.hpp"

namespace shmtrain::comm {
namespace {

// avg divides, as the float all-reduce does (reduce_kernels.cpp).
float finish(float acc, ReduceOp op, float divisor) { return op == ReduceOp::avg ? acc / divisor : acc; }

void reduce_scalar(tensor::bf16* const* dst, int destinations, const tensor::bf16* const* src, int sources,
                   std::size_t count, ReduceOp op, float divisor) {
  for (std::size_t i = 0; i < count; ++i) {
    float acc = tensor::to_float(src[0][i]);
    for (int q = 1; q < sources; ++q) {
      const float v = tensor::to_float(src[q][i]);
      acc = op == ReduceOp::max ? std::max(acc, v) : acc + v;
    }
    const tensor::bf16 out = tensor::to_bf16(finish(acc, op, divisor));
    for (int d = 0; d < destinations; ++d) dst[d][i] = out;
  }
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) __m512 load16(const tensor::bf16* p,
                                                                              __mmask16 mask) {
  const __m256i raw = _mm256_maskz_loadu_epi16(mask, p);
  // The zero-masked forms: GCC 12 warns (falsely) about the undefined vector inside the plain ones.
  const __m512i wide = _mm512_maskz_cvtepu16_epi32(static_cast<__mmask16>(0xffff), raw);
  return _mm512_castsi512_ps(_mm512_maskz_slli_epi32(static_cast<__mmask16>(0xffff), wide, 16));
}

// The same sums 16 values at a time; VCVTNEPS2BF16 rounds as to_bf16 does.
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void reduce_avx512(
    tensor::bf16* const* dst, int destinations, const tensor::bf16* const* src, int sources,
    std::size_t count, ReduceOp op, float divisor) {
  const __m512 scale = _mm512_set1_ps(divisor);
  for (std::size_t i = 0; i < count; i += 16) {
    const __mmask16 mask =
        count - i >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (count - i)) - 1u);
    __m512 acc = load16(src[0] + i, mask);
    for (int q = 1; q < sources; ++q) {
      const __m512 v = load16(src[q] + i, mask);
      acc = op == ReduceOp::max ? _mm512_maskz_max_ps(static_cast<__mmask16>(0xffff), acc, v) : _mm512_add_ps(acc, v);
    }
    if (op == ReduceOp::avg) acc = _mm512_div_ps(acc, scale);
    const __m256bh rounded = _mm512_cvtneps_pbh(acc);
    for (int d = 0; d < destinations; ++d) {
      _mm256_mask_storeu_epi16(dst[d] + i, mask, reinterpret_cast<const __m256i&>(rounded));
    }
  }
}

}  // namespace

void reduce_bf16_into(tensor::bf16* const* dst, int destinations, const tensor::bf16* const* src, int sources,
                      std::size_t count, ReduceOp op, float divisor) {
  if (tensor::cpu_features().avx512_bf16_loops()) {
    reduce_avx512(dst, destinations, src, sources, count, op, divisor);
  } else {
    reduce_scalar(dst, destinations, src, sources, count, op, divisor);
  }
}

}  // namespace shmtrain::comm
