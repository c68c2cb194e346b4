#include "shmtrain/tensor/layernorm.hpp"

#include <cmath>
#include <vector>

#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain {

void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, std::int64_t n, std::int64_t channels, float eps) {
  parallel_blocks(n, 16, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const float* x = inp + r * channels;
      float sum = 0.0f;
      for (std::int64_t c = 0; c < channels; ++c) sum += x[c];
      const float m = sum / static_cast<float>(channels);
      float var = 0.0f;
      for (std::int64_t c = 0; c < channels; ++c) var += (x[c] - m) * (x[c] - m);
      const float s = 1.0f / std::sqrt(var / static_cast<float>(channels) + eps);
      float* y = out + r * channels;
      for (std::int64_t c = 0; c < channels; ++c) y[c] = (x[c] - m) * s * weight[c] + bias[c];
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
      float dnorm_mean = 0.0f;
      float dnorm_norm_mean = 0.0f;
      for (std::int64_t c = 0; c < channels; ++c) {
        const float dnorm = dy[c] * weight[c];
        dnorm_mean += dnorm;
        dnorm_norm_mean += dnorm * (x[c] - m) * s;
      }
      dnorm_mean /= static_cast<float>(channels);
      dnorm_norm_mean /= static_cast<float>(channels);
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
    dbias[c] += sums[channels + c];
  }
}

}  // namespace shmtrain
