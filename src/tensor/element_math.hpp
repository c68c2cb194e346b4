#pragma once
// Private to tensor/: the scalar pieces several kernels share. Reads and writes of the two
// element types (bf16 rounded to nearest even, once, where a result is stored), and the exact
// GELU's Phi(x) and phi(x) (gelu.cpp, geglu.cpp).
#include <cmath>
#include <numbers>

#include "shmtrain/tensor/bf16.hpp"

namespace shmtrain::tensor {

inline float as_float(float x) { return x; }
inline float as_float(bf16 x) { return to_float(x); }
inline void store(float* out, float v) { *out = v; }
inline void store(bf16* out, float v) { *out = to_bf16(v); }

namespace gelu_math {

inline constexpr float kInvSqrt2 = static_cast<float>(1.0 / std::numbers::sqrt2);
inline constexpr float kInvSqrt2Pi = static_cast<float>(1.0 / (std::numbers::sqrt2 * 1.7724538509055160273));

// Phi(x), the standard normal distribution function: gelu(x) = x * Phi(x).
inline float cdf(float x) { return 0.5f * (1.0f + std::erf(x * kInvSqrt2)); }
// phi(x), its density: gelu'(x) = Phi(x) + x * phi(x).
inline float pdf(float x) { return kInvSqrt2Pi * std::exp(-0.5f * x * x); }

}  // namespace gelu_math
}  // namespace shmtrain::tensor
