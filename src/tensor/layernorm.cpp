#include "shmtrain/tensor/layernorm.hpp"

#include <array>
#include <cmath>
#include <vector>

#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain::tensor {
namespace {

constexpr std::int64_t kLanes = 16;

// sum_c term(c) for c in [0, channels), in 16 independent lanes (the compiler vectorises them;
// one running sum would be a serial chain of adds), then the lanes and the tail in order.
template <typename Term>
float lane_sum(std::int64_t channels, const Term& term) {
  std::array<float, kLanes> lanes{};
  std::int64_t c = 0;
  for (; c + kLanes <= channels; c += kLanes) {
    for (std::int64_t j = 0; j < kLanes; ++j) lanes[static_cast<std::size_t>(j)] += term(c + j);
  }
  float s = 0.0f;
  for (float lane : lanes) s += lane;
  for (; c < channels; ++c) s += term(c);
  return s;
}

}  // namespace

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, std::int64_t n, std::int64_t channels, float eps) {
  parallel_blocks(n, 16, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const float* x = inp + r * channels;
      const float m = lane_sum(channels, [&](std::int64_t c) { return x[c]; }) / static_cast<float>(channels);
      const float var = lane_sum(channels, [&](std::int64_t c) { return (x[c] - m) * (x[c] - m); });
      const float s = 1.0f / std::sqrt(var / static_cast<float>(channels) + eps);
      float* y = out + r * channels;
      if (bias != nullptr) {
        for (std::int64_t c = 0; c < channels; ++c) y[c] = (x[c] - m) * s * weight[c] + bias[c];
      } else {
        for (std::int64_t c = 0; c < channels; ++c) y[c] = (x[c] - m) * s * weight[c];
      }
      mean[r] = m;
      rstd[r] = s;
    }
  });
}

void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, std::int64_t n,
                        std::int64_t channels) {
  // dinp = rstd * (dnorm - mean(dnorm) - norm * mean(dnorm * norm)), dnorm = dout * weight.
  parallel_blocks(n, 16, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const float* x = inp + r * channels;
      const float* dy = dout + r * channels;
      const float m = mean[r];
      const float s = rstd[r];
      const float dnorm_mean =
          lane_sum(channels, [&](std::int64_t c) { return dy[c] * weight[c]; }) / static_cast<float>(channels);
      const float dnorm_norm_mean =
          lane_sum(channels, [&](std::int64_t c) { return dy[c] * weight[c] * ((x[c] - m) * s); }) /
          static_cast<float>(channels);
      float* dx = dinp + r * channels;
      for (std::int64_t c = 0; c < channels; ++c) {
        const float norm = (x[c] - m) * s;
        dx[c] = s * (dy[c] * weight[c] - dnorm_mean - norm * dnorm_norm_mean);
      }
    }
  });
  // dweight += sum_r dout * norm and dbias += sum_r dout, as one reduction of width 2C.
  std::vector<float> sums(static_cast<std::size_t>(2 * channels), 0.0f);
  reduce_rows(sums.data(), n, 2 * channels, [&](float* partial, std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const float* x = inp + r * channels;
      const float* dy = dout + r * channels;
      for (std::int64_t c = 0; c < channels; ++c) {
        partial[c] += dy[c] * ((x[c] - mean[r]) * rstd[r]);
        partial[channels + c] += dy[c];
      }
    }
  });
  for (std::int64_t c = 0; c < channels; ++c) {
    dweight[c] += sums[c];
    if (dbias != nullptr) dbias[c] += sums[channels + c];
  }
}

}  // namespace shmtrain::tensor
