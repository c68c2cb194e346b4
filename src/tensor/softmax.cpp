#include "shmtrain/tensor/softmax.hpp"

#include <cmath>

namespace shmtrain {

void softmax_forward(float* probs, const float* scores, const float* mask_add, std::int64_t rows,
                     std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* s = scores + r * cols;
    float* p = probs + r * cols;
    float max_value = -INFINITY;
    for (std::int64_t c = 0; c < cols; ++c) {
      const float v = mask_add != nullptr ? s[c] + mask_add[c] : s[c];
      p[c] = v;
      max_value = v > max_value ? v : max_value;
    }
    float sum = 0.0f;
    for (std::int64_t c = 0; c < cols; ++c) {
      p[c] = std::exp(p[c] - max_value);
      sum += p[c];
    }
    const float inv = 1.0f / sum;
    for (std::int64_t c = 0; c < cols; ++c) p[c] *= inv;
  }
}

void softmax_backward(float* dscores, const float* dprobs, const float* probs, std::int64_t rows,
                      std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* dp = dprobs + r * cols;
    const float* p = probs + r * cols;
    float dot = 0.0f;
    for (std::int64_t c = 0; c < cols; ++c) dot += dp[c] * p[c];
    float* ds = dscores + r * cols;
    for (std::int64_t c = 0; c < cols; ++c) ds[c] = p[c] * (dp[c] - dot);
  }
}

}  // namespace shmtrain
