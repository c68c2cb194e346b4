#include "shmtrain/tensor/loss.hpp"

#include <algorithm>
#include <cmath>

#include "shmtrain/tensor/softmax.hpp"

namespace shmtrain::tensor {

float cross_entropy_forward(float* probs, const float* logits, const std::int32_t* labels, std::int64_t batch,
                            std::int64_t num_labels) {
  softmax_forward(probs, logits, nullptr, batch, num_labels);
  double total = 0.0;
  for (std::int64_t b = 0; b < batch; ++b) {
    // log-softmax from the logits (not log of probs) so a confident wrong label stays finite.
    const float* z = logits + b * num_labels;
    float max_value = z[0];
    for (std::int64_t l = 1; l < num_labels; ++l) max_value = z[l] > max_value ? z[l] : max_value;
    double sum = 0.0;
    for (std::int64_t l = 0; l < num_labels; ++l) sum += std::exp(static_cast<double>(z[l] - max_value));
    total += std::log(sum) - static_cast<double>(z[labels[b]] - max_value);
  }
  return static_cast<float>(total / static_cast<double>(batch));
}

void cross_entropy_backward(float* dlogits, const float* probs, const std::int32_t* labels, std::int64_t batch,
                            std::int64_t num_labels, float dloss) {
  const float scale = dloss / static_cast<float>(batch);
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t l = 0; l < num_labels; ++l) {
      const float target = l == labels[b] ? 1.0f : 0.0f;
      dlogits[b * num_labels + l] = (probs[b * num_labels + l] - target) * scale;
    }
  }
}

float mse_forward(const float* pred, const float* target, std::int64_t batch) {
  double total = 0.0;
  for (std::int64_t b = 0; b < batch; ++b) {
    const double d = static_cast<double>(pred[b]) - target[b];
    total += d * d;
  }
  return static_cast<float>(total / static_cast<double>(batch));
}

void mse_backward(float* dpred, const float* pred, const float* target, std::int64_t batch, float dloss) {
  const float scale = 2.0f * dloss / static_cast<float>(batch);
  for (std::int64_t b = 0; b < batch; ++b) dpred[b] = (pred[b] - target[b]) * scale;
}

float bce_with_logits_forward(const float* logits, const float* target, std::int64_t batch, float pos_weight) {
  double total = 0.0;
  for (std::int64_t b = 0; b < batch; ++b) {
    const double x = logits[b], y = target[b];
    const double weight = 1.0 + (static_cast<double>(pos_weight) - 1.0) * y;
    total += (1.0 - y) * x + weight * (std::log1p(std::exp(-std::abs(x))) + std::max(-x, 0.0));
  }
  return static_cast<float>(total / static_cast<double>(batch));
}

void bce_with_logits_backward(float* dlogits, const float* logits, const float* target, std::int64_t batch,
                              float pos_weight, float dloss) {
  const double scale = static_cast<double>(dloss) / static_cast<double>(batch);
  for (std::int64_t b = 0; b < batch; ++b) {
    const double x = logits[b], y = target[b];
    const double weight = 1.0 + (static_cast<double>(pos_weight) - 1.0) * y;
    const double sigmoid_neg = 1.0 / (1.0 + std::exp(x));  // sigmoid(-x)
    dlogits[b] = static_cast<float>(((1.0 - y) - weight * sigmoid_neg) * scale);
  }
}

}  // namespace shmtrain::tensor
