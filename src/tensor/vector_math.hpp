#pragma once
// 16-wide and 8-wide erf and exp (private to tensor/), from glibc's libmvec: the vector variants that
// GCC calls for `#pragma omp simd` loops under -ffast-math, called here by name so that the
// rest of the build keeps IEEE semantics. Within 4 ulp of the scalar functions (glibc's
// stated bound), 10-15x faster than one call per element. The element loops use masked
// loads for the tail, so every element goes through the same function whatever n is.
#include <immintrin.h>

#include <cstdint>

#include "shmtrain/tensor/cpu_features.hpp"

extern "C" __attribute__((target("avx512f"))) __m512 _ZGVeN16v_erff(__m512 x);
extern "C" __attribute__((target("avx512f"))) __m512 _ZGVeN16v_expf(__m512 x);
extern "C" __attribute__((target("avx2"))) __m256 _ZGVdN8v_expf(__m256 x);
extern "C" __attribute__((target("avx2"))) __m256 _ZGVdN8v_erff(__m256 x);

namespace shmtrain::tensor::vector_math {

// The rules are cpu_features.hpp's, asked on every call so that a mask set by a test holds.
inline bool have_avx512() { return cpu_features().avx512_core(); }

// AVX2: the 8-wide exp (CPUs without AVX-512, and the kernels written for 8 lanes).
inline bool have_avx2() { return cpu_features().avx2; }
inline bool have_avx2_fma() { return cpu_features().avx2 && cpu_features().fma; }

// AVX-512 with the bf16 conversions (VCVTNEPS2BF16): the bf16 stores of the vector loops.
inline bool have_avx512_bf16() { return cpu_features().avx512_bf16_loops(); }

// Lanes [0, count) set: the tail of a loop over n elements.
__attribute__((target("avx512f"))) inline __mmask16 tail_mask(std::int64_t count) {
  return count >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << count) - 1u);
}

__attribute__((target("avx512f"))) inline __m512 erf16(__m512 x) { return _ZGVeN16v_erff(x); }
__attribute__((target("avx512f"))) inline __m512 exp16(__m512 x) { return _ZGVeN16v_expf(x); }
__attribute__((target("avx2"))) inline __m256 exp8(__m256 x) { return _ZGVdN8v_expf(x); }
__attribute__((target("avx2"))) inline __m256 erf8(__m256 x) { return _ZGVdN8v_erff(x); }

// Lanes [0, count) of 8 set, as a maskload/maskstore mask: the tail of an 8-wide loop.
__attribute__((target("avx2"))) inline __m256i tail_mask8(std::int64_t count) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count < 8 ? count : 8)),
                            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

}  // namespace shmtrain::tensor::vector_math
