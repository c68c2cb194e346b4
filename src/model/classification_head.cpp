#include "classification_head.hpp"

#include <algorithm>
#include <limits>

#include "architectures/architecture.hpp"
#include "backbone.hpp"
#include "fit.hpp"
#include "shmtrain/model/reranking/listwise_loss.hpp"
#include "shmtrain/model/row_dropout.hpp"
#include "shmtrain/tensor/linear.hpp"
#include "shmtrain/tensor/loss.hpp"

namespace shmtrain::model {

ClassificationHead::ClassificationHead(const BertConfig& config, const ParamTable& table,
                                       std::span<float> params, std::span<float> grads)
    : config_(config),
      mean_pooling_(config.classifier_pooling == "mean"),
      dropout_first_(architecture_of(config).pooler_input_dropout != nullptr && !own_choice_dense(config)),
      dense_(config, table, params, grads) {
  const std::string classifier =
      config.head == ModelHead::kMultipleChoice ? "classifier" : architecture_of(config).classifier;
  classifier_w_ = params.data() + table.at(classifier + ".weight").offset;
  classifier_b_ = params.data() + table.at(classifier + ".bias").offset;
  d_classifier_w_ = grads.data() + table.at(classifier + ".weight").offset;
  d_classifier_b_ = grads.data() + table.at(classifier + ".bias").offset;
}

bool ClassificationHead::own_choice_dense(const BertConfig& config) {
  return config.head == ModelHead::kMultipleChoice && architecture_of(config).multiple_choice == ChoiceHead::kOwnDense;
}

float ClassificationHead::dropout_p() const {
  if (!context_.train) return 0.0f;
  if (own_choice_dense(config_)) return static_cast<float>(config_.*architecture_of(config_).choice_dropout);
  return static_cast<float>(config_.*architecture_of(config_).classifier_dropout);
}

float ClassificationHead::input_dropout_p() const {
  if (!context_.train || !dropout_first_) return 0.0f;
  return static_cast<float>(config_.*architecture_of(config_).pooler_input_dropout);
}

namespace {

bool counts(const data::Batch& batch, std::int64_t b, std::int64_t t) {
  return batch.packed() || batch.attention_mask[static_cast<std::size_t>(b * batch.seq + t)] != 0;
}

}  // namespace

float ClassificationHead::forward(const float* hidden, const data::Batch& batch, const StepContext& context) {
  batch_ = &batch;
  context_ = context;
  const std::int64_t b_size = batch.batch;
  const std::int64_t h = config_.hidden_size;
  const std::int64_t labels = config_.head_outputs();
  for (auto* v : {&cls_, &cls_dropped_, &pooled_dropped_, &dpooled_, &dcls_}) fit(*v, b_size * h);
  for (auto* v : {&logits_, &probs_}) fit(*v, b_size * labels);

  for (std::int64_t b = 0; b < b_size; ++b) {
    float* pooled = cls_.data() + b * h;
    const float* row = hidden + batch.row_begin(b) * h;
    if (!mean_pooling_) {
      std::copy_n(row, h, pooled);
      continue;
    }
    // sum(h * mask) / sum(mask), summed in token order as torch's sum over the sequence.
    std::fill_n(pooled, h, 0.0f);
    for (std::int64_t t = 0; t < batch.row_length(b); ++t) {
      if (!counts(batch, b, t)) continue;
      for (std::int64_t c = 0; c < h; ++c) pooled[c] += row[t * h + c];
    }
    const auto count = static_cast<float>(std::max<std::int64_t>(batch.real_length(b), 1));
    for (std::int64_t c = 0; c < h; ++c) pooled[c] /= count;
  }
  const float* dense_in = cls_.data();
  if (dropout_first_) {  // RobertaClassificationHead, ContextPooler: dropout before the dense layer
    RowDropout(batch, context)
        .forward(cls_dropped_.data(), cls_.data(), h, input_dropout_p(), layer_site(config_.num_hidden_layers, 1), nullptr,
                 RowUnit::kOnePerRow);
    dense_in = cls_dropped_.data();
  }
  pooled_ = dense_.forward(dense_in, b_size);
  RowDropout(batch, context)
      .forward(pooled_dropped_.data(), pooled_, h, dropout_p(), layer_site(config_.num_hidden_layers, 0), nullptr,
               RowUnit::kOnePerRow);
  tensor::linear_forward(logits_.data(), pooled_dropped_.data(), classifier_w_, classifier_b_, b_size, h, labels);

  if (config_.is_regression()) {
    if (batch.targets.empty()) return std::numeric_limits<float>::quiet_NaN();
    if (config_.score_loss == BertConfig::ScoreLoss::kBinaryCrossEntropy) {
      return tensor::bce_with_logits_forward(logits_.data(), batch.targets.data(), b_size, config_.pos_weight);
    }
    if (config_.listwise() && !batch.list_lengths.empty()) return listwise_forward(batch);
    return tensor::mse_forward(logits_.data(), batch.targets.data(), b_size);
  }
  if (batch.labels.empty()) return std::numeric_limits<float>::quiet_NaN();
  if (config_.head == ModelHead::kMultipleChoice) {  // the (B, 1) scores viewed as (examples, choices)
    return tensor::cross_entropy_forward(probs_.data(), logits_.data(), batch.labels.data(), b_size / batch.choices,
                                         batch.choices);
  }
  return tensor::cross_entropy_forward(probs_.data(), logits_.data(), batch.labels.data(), b_size, labels);
}

void ClassificationHead::backward(float* dhidden, float loss_scale) {
  const data::Batch& batch = *batch_;
  const std::int64_t b_size = batch.batch;
  const std::int64_t h = config_.hidden_size;
  const std::int64_t labels = config_.head_outputs();

  std::vector<float>& dlogits = probs_;  // the loss backward overwrites the cached softmax in place
  if (config_.is_regression() && config_.listwise()) {
    // listwise_forward left d(loss)/d(logits) of the batch's mean in probs_.
    const float scale = loss_scale * batch.loss_weight;
    for (std::int64_t b = 0; b < b_size; ++b) dlogits[b] *= scale;
  } else if (config_.is_regression() && config_.score_loss == BertConfig::ScoreLoss::kBinaryCrossEntropy) {
    tensor::bce_with_logits_backward(dlogits.data(), logits_.data(), batch.targets.data(), b_size, config_.pos_weight,
                                     loss_scale);
  } else if (config_.is_regression()) {
    tensor::mse_backward(dlogits.data(), logits_.data(), batch.targets.data(), b_size, loss_scale);
  } else if (config_.head == ModelHead::kMultipleChoice) {
    tensor::cross_entropy_backward(dlogits.data(), probs_.data(), batch.labels.data(), b_size / batch.choices,
                                   batch.choices, loss_scale);
  } else {
    tensor::cross_entropy_backward(dlogits.data(), probs_.data(), batch.labels.data(), b_size, labels, loss_scale);
  }
  tensor::linear_backward(dpooled_.data(), d_classifier_w_, d_classifier_b_, dlogits.data(), pooled_dropped_.data(),
                          classifier_w_, b_size, h, labels);
  RowDropout(batch, context_)
      .backward_redraw(dpooled_.data(), dpooled_.data(), h, dropout_p(), layer_site(config_.num_hidden_layers, 0),
                       RowUnit::kOnePerRow);
  dense_.backward(dcls_.data(), dpooled_.data());
  if (dropout_first_) {
    RowDropout(batch, context_)
        .backward_redraw(dcls_.data(), dcls_.data(), h, input_dropout_p(), layer_site(config_.num_hidden_layers, 1),
                         RowUnit::kOnePerRow);
  }
  // Only the pooled tokens feed the head.
  std::fill_n(dhidden, batch.tokens() * h, 0.0f);
  for (std::int64_t b = 0; b < b_size; ++b) {
    const float* d = dcls_.data() + b * h;
    float* row = dhidden + batch.row_begin(b) * h;
    if (!mean_pooling_) {
      std::copy_n(d, h, row);
      continue;
    }
    const float count = static_cast<float>(std::max<std::int64_t>(batch.real_length(b), 1));
    for (std::int64_t t = 0; t < batch.row_length(b); ++t) {
      if (!counts(batch, b, t)) continue;
      for (std::int64_t c = 0; c < h; ++c) row[t * h + c] = d[c] / count;
    }
  }
}

float ClassificationHead::listwise_forward(const data::Batch& batch) {
  const auto rows = static_cast<std::size_t>(batch.batch);
  const std::span<const float> scores(logits_.data(), rows);
  const std::span<const float> labels(batch.targets.data(), rows);
  double sum = 0;
  double normalizer = 0;  // ListNet: a mean over the lists; LambdaLoss: over the pairs it takes
  if (config_.score_loss == BertConfig::ScoreLoss::kListNet) {
    sum = reranking::listnet_loss_sum(scores, labels, batch.list_lengths, probs_.data());
    normalizer = static_cast<double>(batch.list_lengths.size());
  } else if (config_.score_loss == BertConfig::ScoreLoss::kMultipleNegatives) {
    sum = reranking::multiple_negatives_loss_sum(scores, batch.list_lengths, config_.ranking_scale, probs_.data());
    normalizer = static_cast<double>(batch.list_lengths.size());
  } else {
    const reranking::LambdaLossOptions options{.weighting = config_.lambda_weighting};
    sum = reranking::lambda_loss_sum(scores, labels, batch.list_lengths, options, probs_.data());
    normalizer = static_cast<double>(reranking::lambda_pair_count(labels, batch.list_lengths, options.weighting));
  }
  // A batch without a pair to rank (every label equal) adds nothing: sentence-transformers'
  // mean over no pairs would be NaN.
  const double inverse = normalizer > 0 ? 1.0 / normalizer : 0.0;
  for (std::size_t b = 0; b < rows; ++b) probs_[b] = static_cast<float>(probs_[b] * inverse);
  return static_cast<float>(sum * inverse) * batch.loss_weight;
}

}  // namespace shmtrain::model
