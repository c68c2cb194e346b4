#include "qa_head.hpp"

#include <limits>

#include "architectures/architecture.hpp"
#include "backbone.hpp"
#include "fit.hpp"
#include "shmtrain/tensor/dropout.hpp"
#include "shmtrain/tensor/linear.hpp"
#include "shmtrain/tensor/loss.hpp"

namespace shmtrain::model {
QaHead::QaHead(const BertConfig& config, const ParamTable& table, std::span<float> params,
               std::span<float> grads)
    : config_(config) {
  weight_ = params.data() + table.at("qa_outputs.weight").offset;
  bias_ = params.data() + table.at("qa_outputs.bias").offset;
  d_weight_ = grads.data() + table.at("qa_outputs.weight").offset;
  d_bias_ = grads.data() + table.at("qa_outputs.bias").offset;
  first_offset_ = table.at("qa_outputs.weight").offset;
}

float QaHead::dropout_p() const {
  const auto rate = architecture_of(config_).qa_dropout;
  return context_.train && rate != nullptr ? static_cast<float>(config_.*rate) : 0.0f;
}

float QaHead::forward(const float* hidden, const data::Batch& batch, const StepContext& context) {
  batch_ = &batch;
  context_ = context;
  const std::int64_t b_size = batch.batch;
  const std::int64_t t = batch.seq;
  const std::int64_t n = b_size * t;
  const std::int64_t h = config_.hidden_size;
  fit(logits_, n * 2);
  fit(dlogits_, n * 2);
  for (auto* v : {&start_logits_, &end_logits_, &start_probs_, &end_probs_}) fit(*v, n);

  input_ = hidden;
  if (dropout_p() > 0.0f) {
    fit(dropped_, n * h);
    tensor::dropout_forward(dropped_.data(), hidden, n * h, dropout_p(),
                            tensor::dropout_key(context.seed, context.rank, context.step,
                                                layer_site(config_.num_hidden_layers, 0)));
    input_ = dropped_.data();
  }
  tensor::linear_forward(logits_.data(), input_, weight_, bias_, n, h, 2);
  if (batch.start_positions.empty()) return std::numeric_limits<float>::quiet_NaN();
  for (std::int64_t i = 0; i < n; ++i) {
    start_logits_[i] = logits_[2 * i];
    end_logits_[i] = logits_[2 * i + 1];
  }
  const float start_loss = tensor::cross_entropy_forward(start_probs_.data(), start_logits_.data(),
                                                         batch.start_positions.data(), b_size, t);
  const float end_loss = tensor::cross_entropy_forward(end_probs_.data(), end_logits_.data(),
                                                       batch.end_positions.data(), b_size, t);
  return (start_loss + end_loss) / 2.0f;
}

void QaHead::backward(float* dhidden, float loss_scale) {
  const data::Batch& batch = *batch_;
  const std::int64_t b_size = batch.batch;
  const std::int64_t t = batch.seq;
  const std::int64_t n = b_size * t;
  const std::int64_t h = config_.hidden_size;
  // Each cross-entropy enters the loss with weight 1/2. The softmax caches become the gradients.
  tensor::cross_entropy_backward(start_probs_.data(), start_probs_.data(), batch.start_positions.data(),
                                 b_size, t, 0.5f * loss_scale);
  tensor::cross_entropy_backward(end_probs_.data(), end_probs_.data(), batch.end_positions.data(), b_size, t,
                                 0.5f * loss_scale);
  for (std::int64_t i = 0; i < n; ++i) {
    dlogits_[2 * i] = start_probs_[i];
    dlogits_[2 * i + 1] = end_probs_[i];
  }
  tensor::linear_backward(dhidden, d_weight_, d_bias_, dlogits_.data(), input_, weight_, n, h, 2);
  if (dropout_p() > 0.0f) {
    tensor::dropout_backward(dhidden, dhidden, n * h, dropout_p(),
                             tensor::dropout_key(context_.seed, context_.rank, context_.step,
                                                 layer_site(config_.num_hidden_layers, 0)));
  }
}

}  // namespace shmtrain::model
