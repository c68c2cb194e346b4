#include "qa_head.hpp"

#include <limits>

#include "architectures/architecture.hpp"
#include "backbone.hpp"
#include "fit.hpp"
#include "shmtrain/model/row_dropout.hpp"
#include "shmtrain/tensor/linear.hpp"
#include "shmtrain/tensor/loss.hpp"

namespace shmtrain::model {
QaHead::QaHead(const BertConfig& config, const ParamTable& table, std::span<float> params,
               std::span<float> grads)
    : config_(config) {
  const Architecture& arch = architecture_of(config);
  if (arch.token_heads_use_pooler) dense_.emplace(config, table, params, grads);
  const std::string linear = arch.qa_outputs;
  weight_ = params.data() + table.at(linear + ".weight").offset;
  bias_ = params.data() + table.at(linear + ".bias").offset;
  d_weight_ = grads.data() + table.at(linear + ".weight").offset;
  d_bias_ = grads.data() + table.at(linear + ".bias").offset;
  first_offset_ = dense_ ? dense_->first_offset() : table.at(linear + ".weight").offset;
}

float QaHead::dropout_p() const {
  const auto rate = architecture_of(config_).qa_dropout;
  return context_.train && rate != nullptr ? static_cast<float>(config_.*rate) : 0.0f;
}

float QaHead::forward(const float* hidden, const data::Batch& batch, const StepContext& context) {
  batch_ = &batch;
  context_ = context;
  const std::int64_t n = batch.tokens();
  const std::int64_t h = config_.hidden_size;
  fit(logits_, n * 2);
  fit(dlogits_, n * 2);
  for (auto* v : {&start_logits_, &end_logits_, &start_probs_, &end_probs_}) fit(*v, n);

  dense_out_ = dense_ ? dense_->forward(hidden, n) : hidden;
  input_ = dense_out_;
  if (dropout_p() > 0.0f) {
    fit(dropped_, n * h);
    RowDropout(batch, context)
        .forward(dropped_.data(), dense_out_, h, dropout_p(), layer_site(config_.num_hidden_layers, 0), nullptr);
    input_ = dropped_.data();
  }
  tensor::linear_forward(logits_.data(), input_, weight_, bias_, n, h, 2);
  if (batch.start_positions.empty()) return std::numeric_limits<float>::quiet_NaN();
  for (std::int64_t i = 0; i < n; ++i) {
    start_logits_[i] = logits_[2 * i];
    end_logits_[i] = logits_[2 * i + 1];
  }
  if (!batch.packed()) {
    const float start_loss = tensor::cross_entropy_forward(
        start_probs_.data(), start_logits_.data(), batch.start_positions.data(), batch.batch, batch.seq);
    const float end_loss = tensor::cross_entropy_forward(end_probs_.data(), end_logits_.data(),
                                                         batch.end_positions.data(), batch.batch, batch.seq);
    return (start_loss + end_loss) / 2.0f;
  }
  // Packed: each row's softmax over its own tokens, then the mean over rows.
  float start_loss = 0.0f;
  float end_loss = 0.0f;
  for (std::int64_t b = 0; b < batch.batch; ++b) {
    const std::int64_t first = batch.row_begin(b);
    const std::int64_t length = batch.row_length(b);
    start_loss += tensor::cross_entropy_forward(start_probs_.data() + first, start_logits_.data() + first,
                                                &batch.start_positions[b], 1, length);
    end_loss += tensor::cross_entropy_forward(end_probs_.data() + first, end_logits_.data() + first,
                                              &batch.end_positions[b], 1, length);
  }
  return (start_loss + end_loss) / (2.0f * static_cast<float>(batch.batch));
}

void QaHead::loss_backward(float loss_scale) {
  const data::Batch& batch = *batch_;
  // Each cross-entropy enters the loss with weight 1/2. The softmax caches become the gradients.
  if (!batch.packed()) {
    tensor::cross_entropy_backward(start_probs_.data(), start_probs_.data(), batch.start_positions.data(),
                                   batch.batch, batch.seq, 0.5f * loss_scale);
    tensor::cross_entropy_backward(end_probs_.data(), end_probs_.data(), batch.end_positions.data(),
                                   batch.batch, batch.seq, 0.5f * loss_scale);
    return;
  }
  const float row_scale = 0.5f * loss_scale / static_cast<float>(batch.batch);
  for (std::int64_t b = 0; b < batch.batch; ++b) {
    const std::int64_t first = batch.row_begin(b);
    const std::int64_t length = batch.row_length(b);
    tensor::cross_entropy_backward(start_probs_.data() + first, start_probs_.data() + first,
                                   &batch.start_positions[b], 1, length, row_scale);
    tensor::cross_entropy_backward(end_probs_.data() + first, end_probs_.data() + first,
                                   &batch.end_positions[b], 1, length, row_scale);
  }
}

void QaHead::backward(float* dhidden, float loss_scale) {
  const std::int64_t n = batch_->tokens();
  const std::int64_t h = config_.hidden_size;
  loss_backward(loss_scale);
  for (std::int64_t i = 0; i < n; ++i) {
    dlogits_[2 * i] = start_probs_[i];
    dlogits_[2 * i + 1] = end_probs_[i];
  }
  float* d_input = dhidden;
  if (dense_) {
    fit(d_dense_out_, n * h);
    d_input = d_dense_out_.data();
  }
  tensor::linear_backward(d_input, d_weight_, d_bias_, dlogits_.data(), input_, weight_, n, h, 2);
  if (dropout_p() > 0.0f) {
    RowDropout(*batch_, context_)
        .backward_redraw(d_input, d_input, h, dropout_p(), layer_site(config_.num_hidden_layers, 0));
  }
  if (dense_) dense_->backward(dhidden, d_input);
}

}  // namespace shmtrain::model
