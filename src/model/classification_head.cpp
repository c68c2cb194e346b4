#include "classification_head.hpp"

#include <algorithm>
#include <limits>

#include "architectures/architecture.hpp"
#include "backbone.hpp"
#include "fit.hpp"
#include "shmtrain/model/row_dropout.hpp"
#include "shmtrain/tensor/linear.hpp"
#include "shmtrain/tensor/loss.hpp"
#include "shmtrain/tensor/relu.hpp"
#include "shmtrain/tensor/tanh.hpp"

namespace shmtrain::model {
ClassificationHead::ClassificationHead(const BertConfig& config, const ParamTable& table,
                                       std::span<float> params, std::span<float> grads)
    : config_(config),
      relu_(architecture_of(config).pooler_relu),
      dropout_first_(architecture_of(config).dropout_before_pooler) {
  const std::string dense = architecture_of(config).pooler;
  auto in = [&](std::span<float> arena, const std::string& name) {
    return arena.data() + table.at(name).offset;
  };
  dense_w_ = in(params, dense + ".weight");
  dense_b_ = in(params, dense + ".bias");
  const std::string classifier = architecture_of(config).classifier;
  classifier_w_ = in(params, classifier + ".weight");
  classifier_b_ = in(params, classifier + ".bias");
  d_dense_w_ = in(grads, dense + ".weight");
  d_dense_b_ = in(grads, dense + ".bias");
  d_classifier_w_ = in(grads, classifier + ".weight");
  d_classifier_b_ = in(grads, classifier + ".bias");
  first_offset_ = table.at(dense + ".weight").offset;
}

float ClassificationHead::dropout_p() const {
  if (!context_.train) return 0.0f;
  return static_cast<float>(config_.*architecture_of(config_).classifier_dropout);
}

float ClassificationHead::forward(const float* hidden, const data::Batch& batch, const StepContext& context) {
  batch_ = &batch;
  context_ = context;
  const std::int64_t b_size = batch.batch;
  const std::int64_t h = config_.hidden_size;
  const std::int64_t labels = config_.num_labels();
  for (auto* v : {&cls_, &cls_dropped_, &pooled_pre_, &pooled_, &pooled_dropped_, &dpooled_}) fit(*v, b_size * h);
  for (auto* v : {&logits_, &probs_}) fit(*v, b_size * labels);

  for (std::int64_t b = 0; b < b_size; ++b)
    std::copy_n(hidden + batch.row_begin(b) * h, h, cls_.data() + b * h);
  const float* dense_in = cls_.data();
  if (dropout_first_) {  // RobertaClassificationHead: dropout on <s> before the dense layer
    RowDropout(batch, context)
        .forward(cls_dropped_.data(), cls_.data(), h, dropout_p(), layer_site(config_.num_hidden_layers, 1), nullptr,
                 RowUnit::kOnePerRow);
    dense_in = cls_dropped_.data();
  }
  tensor::linear_forward(pooled_pre_.data(), dense_in, dense_w_, dense_b_, b_size, h, h);
  if (relu_) {
    tensor::relu_forward(pooled_.data(), pooled_pre_.data(), b_size * h);
  } else {
    tensor::tanh_forward(pooled_.data(), pooled_pre_.data(), b_size * h);
  }
  RowDropout(batch, context)
      .forward(pooled_dropped_.data(), pooled_.data(), h, dropout_p(),
               layer_site(config_.num_hidden_layers, 0), nullptr, RowUnit::kOnePerRow);
  tensor::linear_forward(logits_.data(), pooled_dropped_.data(), classifier_w_, classifier_b_, b_size, h,
                         labels);

  if (config_.is_regression()) {
    if (batch.targets.empty()) return std::numeric_limits<float>::quiet_NaN();
    return tensor::mse_forward(logits_.data(), batch.targets.data(), b_size);
  }
  if (batch.labels.empty()) return std::numeric_limits<float>::quiet_NaN();
  return tensor::cross_entropy_forward(probs_.data(), logits_.data(), batch.labels.data(), b_size, labels);
}

void ClassificationHead::backward(float* dhidden, float loss_scale) {
  const data::Batch& batch = *batch_;
  const std::int64_t b_size = batch.batch;
  const std::int64_t h = config_.hidden_size;
  const std::int64_t labels = config_.num_labels();

  std::vector<float>& dlogits = probs_;  // the loss backward overwrites the cached softmax in place
  if (config_.is_regression()) {
    tensor::mse_backward(dlogits.data(), logits_.data(), batch.targets.data(), b_size, loss_scale);
  } else {
    tensor::cross_entropy_backward(dlogits.data(), probs_.data(), batch.labels.data(), b_size, labels,
                                   loss_scale);
  }
  tensor::linear_backward(dpooled_.data(), d_classifier_w_, d_classifier_b_, dlogits.data(),
                          pooled_dropped_.data(), classifier_w_, b_size, h, labels);
  RowDropout(batch, context_)
      .backward_redraw(dpooled_.data(), dpooled_.data(), h, dropout_p(),
                       layer_site(config_.num_hidden_layers, 0), RowUnit::kOnePerRow);
  if (relu_) {
    tensor::relu_backward(dpooled_.data(), dpooled_.data(), pooled_.data(), b_size * h);
  } else {
    tensor::tanh_backward(dpooled_.data(), dpooled_.data(), pooled_.data(), b_size * h);
  }
  // Only the [CLS] rows feed the head.
  std::fill_n(dhidden, batch.tokens() * h, 0.0f);
  std::vector<float>& dcls =
      pooled_pre_;  // free once the activation's backward (which reads pooled_) is done
  tensor::linear_backward(dcls.data(), d_dense_w_, d_dense_b_, dpooled_.data(),
                          dropout_first_ ? cls_dropped_.data() : cls_.data(), dense_w_, b_size, h, h);
  if (dropout_first_) {
    RowDropout(batch, context_)
        .backward_redraw(dcls.data(), dcls.data(), h, dropout_p(), layer_site(config_.num_hidden_layers, 1),
                         RowUnit::kOnePerRow);
  }
  for (std::int64_t b = 0; b < b_size; ++b)
    std::copy_n(dcls.data() + b * h, h, dhidden + batch.row_begin(b) * h);
}

}  // namespace shmtrain::model
