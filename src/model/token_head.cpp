#include "token_head.hpp"

#include <cmath>
#include <limits>

#include "architectures/architecture.hpp"
#include "backbone.hpp"
#include "fit.hpp"
#include "shmtrain/data/dataset.hpp"
#include "shmtrain/model/row_dropout.hpp"
#include "shmtrain/tensor/linear.hpp"

namespace shmtrain::model {

TokenHead::TokenHead(const BertConfig& config, const ParamTable& table, std::span<float> params,
                     std::span<float> grads)
    : config_(config) {
  if (architecture_of(config).token_heads_use_pooler) dense_.emplace(config, table, params, grads);
  weight_ = params.data() + table.at("classifier.weight").offset;
  bias_ = params.data() + table.at("classifier.bias").offset;
  d_weight_ = grads.data() + table.at("classifier.weight").offset;
  d_bias_ = grads.data() + table.at("classifier.bias").offset;
  first_offset_ = dense_ ? dense_->first_offset() : table.at("classifier.weight").offset;
}

float TokenHead::dropout_p() const {
  return context_.train ? static_cast<float>(config_.*architecture_of(config_).token_dropout) : 0.0f;
}

float TokenHead::forward(const float* hidden, const data::Batch& batch, const StepContext& context) {
  batch_ = &batch;
  context_ = context;
  const std::int64_t n = batch.tokens();
  const std::int64_t h = config_.hidden_size;
  const std::int64_t l = config_.num_labels();
  fit(logits_, n * l);
  fit(dlogits_, n * l);
  dense_out_ = dense_ ? dense_->forward(hidden, n) : hidden;
  input_ = dense_out_;
  if (dropout_p() > 0.0f) {
    fit(dropped_, n * h);
    RowDropout(batch, context)
        .forward(dropped_.data(), dense_out_, h, dropout_p(), layer_site(config_.num_hidden_layers, 0), nullptr);
    input_ = dropped_.data();
  }
  tensor::linear_forward(logits_.data(), input_, weight_, bias_, n, h, l);
  labelled_ = 0;
  if (batch.labels.empty()) return std::numeric_limits<float>::quiet_NaN();
  // Softmax and cross-entropy of every labelled token; the sum over the batch in double.
  double loss = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    float* p = dlogits_.data() + i * l;
    const std::int32_t label = batch.labels[static_cast<std::size_t>(i)];
    if (label == data::kIgnoredLabel) {
      std::fill_n(p, l, 0.0f);
      continue;
    }
    const float* z = logits_.data() + i * l;
    float max = z[0];
    for (std::int64_t k = 1; k < l; ++k) max = std::max(max, z[k]);
    double sum = 0;
    for (std::int64_t k = 0; k < l; ++k) sum += std::exp(static_cast<double>(z[k] - max));
    for (std::int64_t k = 0; k < l; ++k) p[k] = static_cast<float>(std::exp(static_cast<double>(z[k] - max)) / sum);
    loss += std::log(sum) - static_cast<double>(z[label] - max);
    ++labelled_;
  }
  if (labelled_ == 0) return 0.0f;  // PyTorch gives NaN; a batch of only ignored tokens adds nothing
  return static_cast<float>(loss / static_cast<double>(labelled_)) * batch.loss_weight;
}

void TokenHead::backward(float* dhidden, float loss_scale) {
  const data::Batch& batch = *batch_;
  const std::int64_t n = batch.tokens();
  const std::int64_t h = config_.hidden_size;
  const std::int64_t l = config_.num_labels();
  const float scale =
      labelled_ == 0 ? 0.0f : loss_scale * batch.loss_weight / static_cast<float>(labelled_);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int32_t label = batch.labels.empty() ? data::kIgnoredLabel : batch.labels[static_cast<std::size_t>(i)];
    float* d = dlogits_.data() + i * l;
    if (label == data::kIgnoredLabel) {
      std::fill_n(d, l, 0.0f);
      continue;
    }
    d[label] -= 1.0f;
    for (std::int64_t k = 0; k < l; ++k) d[k] *= scale;
  }
  float* d_input = dhidden;
  if (dense_) {
    fit(d_dense_out_, n * h);
    d_input = d_dense_out_.data();
  }
  tensor::linear_backward(d_input, d_weight_, d_bias_, dlogits_.data(), input_, weight_, n, h, l);
  if (dropout_p() > 0.0f) {
    RowDropout(batch, context_)
        .backward_redraw(d_input, d_input, h, dropout_p(), layer_site(config_.num_hidden_layers, 0));
  }
  if (dense_) dense_->backward(dhidden, d_input);
}

}  // namespace shmtrain::model
