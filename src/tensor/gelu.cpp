#include "shmtrain/tensor/gelu.hpp"

#include <cmath>
#include <numbers>

#include "shmtrain/tensor/parallel.hpp"
#include "element_math.hpp"
#include "vector_math.hpp"

namespace shmtrain::tensor {
namespace {

using gelu_math::kInvSqrt2;
using gelu_math::kInvSqrt2Pi;
constexpr std::int64_t kGeluGrain = 4096;
// Floats ahead to prefetch in the vector loops: with two library calls per 16 elements the
// out-of-order window does not reach the next loads, and the hardware prefetcher alone left
// the backward waiting on memory for half its time (perf annotate).
constexpr std::int64_t kPrefetchAhead = 512;

template <typename Out>
void forward_scalar(Out* out, const float* inp, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float x = inp[i];
    store(out + i, x * gelu_math::cdf(x));
  }
}

template <typename Out>
void backward_scalar(Out* dinp, const float* dout, const float* inp, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float x = inp[i];
    store(dinp + i, dout[i] * (gelu_math::cdf(x) + x * gelu_math::pdf(x)));
  }
}

// Out is float, or bf16 rounded as to_bf16 does: VCVTNEPS2BF16 when the CPU has it (decided
// once per call by the caller: a check per 16 elements halved the loop's speed).
template <typename Out, bool kNativeBf16>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"), always_inline)) inline void store16(Out* out,
                                                                                                 __mmask16 mask,
                                                                                                 __m512 v) {
  if constexpr (std::is_same_v<Out, float>) {
    _mm512_mask_storeu_ps(out, mask, v);
  } else if constexpr (kNativeBf16) {
    const __m256bh h = _mm512_cvtneps_pbh(v);
    _mm256_mask_storeu_epi16(out, mask, reinterpret_cast<const __m256i&>(h));
  } else {
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, v);
    for (int j = 0; j < 16; ++j)
      if ((mask >> j) & 1) out[j] = to_bf16(lanes[j]);
  }
}

template <typename Out, bool kNativeBf16>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void forward_avx512(Out* out, const float* inp,
                                                                                  std::int64_t n) {
  const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f), inv_sqrt2 = _mm512_set1_ps(kInvSqrt2);
  for (std::int64_t i = 0; i < n; i += 16) {
    const __mmask16 mask = vector_math::tail_mask(n - i);
    _mm_prefetch(reinterpret_cast<const char*>(inp + i + kPrefetchAhead), _MM_HINT_T0);
    const __m512 x = _mm512_maskz_loadu_ps(mask, inp + i);
    const __m512 cdf = _mm512_mul_ps(half, _mm512_add_ps(one, vector_math::erf16(_mm512_mul_ps(x, inv_sqrt2))));
    store16<Out, kNativeBf16>(out + i, mask, _mm512_mul_ps(x, cdf));
  }
}

template <typename Out, bool kNativeBf16>
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void backward_avx512(Out* dinp, const float* dout,
                                                                                   const float* inp, std::int64_t n) {
  const __m512 half = _mm512_set1_ps(0.5f), one = _mm512_set1_ps(1.0f), inv_sqrt2 = _mm512_set1_ps(kInvSqrt2);
  const __m512 minus_half = _mm512_set1_ps(-0.5f), inv_sqrt2pi = _mm512_set1_ps(kInvSqrt2Pi);
  for (std::int64_t i = 0; i < n; i += 16) {
    const __mmask16 mask = vector_math::tail_mask(n - i);
    _mm_prefetch(reinterpret_cast<const char*>(inp + i + kPrefetchAhead), _MM_HINT_T0);
    _mm_prefetch(reinterpret_cast<const char*>(dout + i + kPrefetchAhead), _MM_HINT_T0);
    const __m512 x = _mm512_maskz_loadu_ps(mask, inp + i);
    const __m512 dy = _mm512_maskz_loadu_ps(mask, dout + i);
    const __m512 cdf = _mm512_mul_ps(half, _mm512_add_ps(one, vector_math::erf16(_mm512_mul_ps(x, inv_sqrt2))));
    const __m512 pdf = _mm512_mul_ps(inv_sqrt2pi, vector_math::exp16(_mm512_mul_ps(minus_half, _mm512_mul_ps(x, x))));
    store16<Out, kNativeBf16>(dinp + i, mask, _mm512_mul_ps(dy, _mm512_fmadd_ps(x, pdf, cdf)));
  }
}

// 8 lanes (AVX2 without AVX-512): out is float (bf16 outputs need an AVX-512 bf16 CPU to be
// asked for; they are rounded lane by lane here).
template <typename Out>
__attribute__((target("avx2,fma"), always_inline)) inline void store8(Out* out, __m256i mask, std::int64_t count,
                                                                      __m256 v) {
  if constexpr (std::is_same_v<Out, float>) {
    _mm256_maskstore_ps(out, mask, v);
  } else {
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, v);
    for (std::int64_t j = 0; j < count && j < 8; ++j) out[j] = to_bf16(lanes[j]);
  }
}

template <typename Out>
__attribute__((target("avx2,fma"))) void forward_avx2(Out* out, const float* inp, std::int64_t n) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f), inv_sqrt2 = _mm256_set1_ps(kInvSqrt2);
  for (std::int64_t i = 0; i < n; i += 8) {
    const __m256i mask = vector_math::tail_mask8(n - i);
    const __m256 x = _mm256_maskload_ps(inp + i, mask);
    const __m256 cdf = _mm256_mul_ps(half, _mm256_add_ps(one, vector_math::erf8(_mm256_mul_ps(x, inv_sqrt2))));
    store8(out + i, mask, n - i, _mm256_mul_ps(x, cdf));
  }
}

template <typename Out>
__attribute__((target("avx2,fma"))) void backward_avx2(Out* dinp, const float* dout, const float* inp,
                                                       std::int64_t n) {
  const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f), inv_sqrt2 = _mm256_set1_ps(kInvSqrt2);
  const __m256 minus_half = _mm256_set1_ps(-0.5f), inv_sqrt2pi = _mm256_set1_ps(kInvSqrt2Pi);
  for (std::int64_t i = 0; i < n; i += 8) {
    const __m256i mask = vector_math::tail_mask8(n - i);
    const __m256 x = _mm256_maskload_ps(inp + i, mask);
    const __m256 dy = _mm256_maskload_ps(dout + i, mask);
    const __m256 cdf = _mm256_mul_ps(half, _mm256_add_ps(one, vector_math::erf8(_mm256_mul_ps(x, inv_sqrt2))));
    const __m256 pdf = _mm256_mul_ps(inv_sqrt2pi, vector_math::exp8(_mm256_mul_ps(minus_half, _mm256_mul_ps(x, x))));
    store8(dinp + i, mask, n - i, _mm256_mul_ps(dy, _mm256_fmadd_ps(x, pdf, cdf)));
  }
}

template <typename Out>
void forward(Out* out, const float* inp, std::int64_t n) {
  parallel_blocks(n, kGeluGrain, [&](std::int64_t i0, std::int64_t i1) {
    if (vector_math::have_avx512_bf16()) {
      forward_avx512<Out, true>(out + i0, inp + i0, i1 - i0);
    } else if (vector_math::have_avx512()) {
      forward_avx512<Out, false>(out + i0, inp + i0, i1 - i0);
    } else if (vector_math::have_avx2_fma()) {
      forward_avx2(out + i0, inp + i0, i1 - i0);
    } else {
      forward_scalar(out + i0, inp + i0, i1 - i0);
    }
  });
}

template <typename Out>
void backward(Out* dinp, const float* dout, const float* inp, std::int64_t n) {
  parallel_blocks(n, kGeluGrain, [&](std::int64_t i0, std::int64_t i1) {
    if (vector_math::have_avx512_bf16()) {
      backward_avx512<Out, true>(dinp + i0, dout + i0, inp + i0, i1 - i0);
    } else if (vector_math::have_avx512()) {
      backward_avx512<Out, false>(dinp + i0, dout + i0, inp + i0, i1 - i0);
    } else if (vector_math::have_avx2_fma()) {
      backward_avx2(dinp + i0, dout + i0, inp + i0, i1 - i0);
    } else {
      backward_scalar(dinp + i0, dout + i0, inp + i0, i1 - i0);
    }
  });
}

}  // namespace

void gelu_forward(float* out, const float* inp, std::int64_t n) { forward(out, inp, n); }
void gelu_forward(bf16* out, const float* inp, std::int64_t n) { forward(out, inp, n); }
void gelu_backward(float* dinp, const float* dout, const float* inp, std::int64_t n) { backward(dinp, dout, inp, n); }
void gelu_backward(bf16* dinp, const float* dout, const float* inp, std::int64_t n) { backward(dinp, dout, inp, n); }

}  // namespace shmtrain::tensor
