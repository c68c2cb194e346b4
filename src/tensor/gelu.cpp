#include "shmtrain/tensor/gelu.hpp"

#include <cmath>
#include <numbers>

#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain {
namespace {
constexpr float kInvSqrt2 = static_cast<float>(1.0 / std::numbers::sqrt2);
constexpr float kInvSqrt2Pi = static_cast<float>(1.0 / (std::numbers::sqrt2 * 1.7724538509055160273));
constexpr std::int64_t kGrain = 4096;
}  // namespace

void gelu_forward(float* out, const float* inp, std::int64_t n) {
  parallel_blocks(n, kGrain, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) {
      const float x = inp[i];
      out[i] = 0.5f * x * (1.0f + std::erf(x * kInvSqrt2));
    }
  });
}

void gelu_backward(float* dinp, const float* dout, const float* inp, std::int64_t n) {
  parallel_blocks(n, kGrain, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) {
      const float x = inp[i];
      const float cdf = 0.5f * (1.0f + std::erf(x * kInvSqrt2));
      const float pdf = kInvSqrt2Pi * std::exp(-0.5f * x * x);
      dinp[i] = dout[i] * (cdf + x * pdf);
    }
  });
}

}  // namespace shmtrain
