#include "adamw_update.hpp"

#include <immintrin.h>

#include <cmath>

#include "shmtrain/tensor/cpu_features.hpp"

namespace shmtrain::optim {
namespace {

void update_scalar(const AdamWPointers& at, std::int64_t i0, std::int64_t i1, const AdamWScalars& k) {
  for (std::int64_t i = i0; i < i1; ++i) {
    const float g = at.grad[i] * k.grad_scale;
    const float p = at.param[i] * k.decay;
    const float m = k.beta1 * at.exp_avg[i] + (1.0f - k.beta1) * g;
    const float v = k.beta2 * at.exp_avg_sq[i] + (1.0f - k.beta2) * g * g;
    const float denom = std::sqrt(v) / k.bias_correction2_sqrt + k.eps;
    at.exp_avg[i] = m;
    at.exp_avg_sq[i] = v;
    at.param[i] = p - k.step_size * (m / denom);
    if (at.param16 != nullptr) at.param16[i] = tensor::to_bf16(at.param[i]);
  }
}

// The bf16 copy of 16 updated lanes: VCVTNEPS2BF16 where the CPU has it (kNativeBf16), else
// to_bf16 on each lane, which rounds alike (bf16.cpp).
template <bool kNativeBf16>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"), always_inline)) inline void store_bf16(
    tensor::bf16* out, __mmask16 lanes, __m512 v) {
  if constexpr (kNativeBf16) {
    const __m256bh rounded = _mm512_cvtneps_pbh(v);
    _mm256_mask_storeu_epi16(out, lanes, reinterpret_cast<const __m256i&>(rounded));
  } else {
    alignas(64) float values[16];
    _mm512_store_ps(values, v);
    for (int lane = 0; lane < 16; ++lane) {
      if (((lanes >> lane) & 1u) != 0) out[lane] = tensor::to_bf16(values[lane]);
    }
  }
}

// The same arithmetic, 16 lanes at a time. The compiler leaves the scalar loop scalar: its
// five streams may alias as far as it can tell. (The square root is the all-lanes maskz form:
// GCC 12 warns falsely inside the plain one.)
template <bool kNativeBf16>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void update_avx512(const AdamWPointers& at,
                                                                                  std::int64_t i0, std::int64_t i1,
                                                                                  const AdamWScalars& k) {
  const __m512 scale = _mm512_set1_ps(k.grad_scale);
  const __m512 decay = _mm512_set1_ps(k.decay);
  const __m512 b1 = _mm512_set1_ps(k.beta1);
  const __m512 b2 = _mm512_set1_ps(k.beta2);
  const __m512 one_minus_b1 = _mm512_set1_ps(1.0f - k.beta1);
  const __m512 one_minus_b2 = _mm512_set1_ps(1.0f - k.beta2);
  const __m512 bc2 = _mm512_set1_ps(k.bias_correction2_sqrt);
  const __m512 eps = _mm512_set1_ps(k.eps);
  const __m512 step_size = _mm512_set1_ps(k.step_size);
  for (std::int64_t i = i0; i < i1; i += 16) {
    const __mmask16 lanes =
        i1 - i >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << (i1 - i)) - 1u);
    const __m512 g = _mm512_mul_ps(_mm512_maskz_loadu_ps(lanes, at.grad + i), scale);
    const __m512 p = _mm512_mul_ps(_mm512_maskz_loadu_ps(lanes, at.param + i), decay);
    const __m512 m = _mm512_add_ps(_mm512_mul_ps(b1, _mm512_maskz_loadu_ps(lanes, at.exp_avg + i)),
                                   _mm512_mul_ps(one_minus_b1, g));
    const __m512 v = _mm512_add_ps(_mm512_mul_ps(b2, _mm512_maskz_loadu_ps(lanes, at.exp_avg_sq + i)),
                                   _mm512_mul_ps(_mm512_mul_ps(one_minus_b2, g), g));
    const __m512 denom = _mm512_add_ps(_mm512_div_ps(_mm512_maskz_sqrt_ps(0xffff, v), bc2), eps);
    const __m512 updated = _mm512_sub_ps(p, _mm512_mul_ps(step_size, _mm512_div_ps(m, denom)));
    _mm512_mask_storeu_ps(at.exp_avg + i, lanes, m);
    _mm512_mask_storeu_ps(at.exp_avg_sq + i, lanes, v);
    _mm512_mask_storeu_ps(at.param + i, lanes, updated);
    if (at.param16 != nullptr) store_bf16<kNativeBf16>(at.param16 + i, lanes, updated);
  }
}

}  // namespace

void adamw_update(const AdamWPointers& at, std::int64_t i0, std::int64_t i1, const AdamWScalars& k) {
  const tensor::CpuFeatures& cpu = tensor::cpu_features();
  if (cpu.avx512_bf16_loops()) {
    update_avx512<true>(at, i0, i1, k);
  } else if (cpu.avx512_core()) {
    update_avx512<false>(at, i0, i1, k);
  } else {
    update_scalar(at, i0, i1, k);
  }
}

}  // namespace shmtrain::optim
