#include "shmtrain/tensor/bf16.hpp"

#include <immintrin.h>

#include "shmtrain/tensor/parallel.hpp"
#include "vector_math.hpp"

namespace shmtrain::tensor {
namespace {

constexpr std::int64_t kConvertGrain = 16384;

void to_bf16_scalar(bf16* out, const float* in, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = to_bf16(in[i]);
}

// VCVTNEPS2BF16 rounds to nearest even like to_bf16; it differs only on denormal inputs,
// which it flushes to (signed) zero: bf16 keeps float32's exponent range, so such values are
// below 1e-38 and no training quantity lives there.
__attribute__((target("avx512f,avx512bf16,avx512vl"))) void to_bf16_avx512(bf16* out, const float* in,
                                                                          std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256bh v = _mm512_cvtneps_pbh(_mm512_loadu_ps(in + i));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), reinterpret_cast<const __m256i&>(v));
  }
  to_bf16_scalar(out + i, in + i, n - i);
}

}  // namespace

void convert_to_bf16_serial(bf16* out, const float* in, std::int64_t n) {
  if (vector_math::have_avx512_bf16()) {
    to_bf16_avx512(out, in, n);
  } else {
    to_bf16_scalar(out, in, n);
  }
}

void convert_to_bf16(bf16* out, const float* in, std::int64_t n) {
  parallel_blocks(n, kConvertGrain,
                  [&](std::int64_t i0, std::int64_t i1) { convert_to_bf16_serial(out + i0, in + i0, i1 - i0); });
}

void convert_to_float(float* out, const bf16* in, std::int64_t n) {
  parallel_blocks(n, kConvertGrain, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) out[i] = to_float(in[i]);
  });
}

}  // namespace shmtrain::tensor
