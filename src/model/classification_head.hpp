#pragma once
// Internal to model: the sequence-classification heads, one computation on a pooled row:
//   pooled = prediction_head(pool(h));  logits = dropout(pooled) W_c^T + b_c     (B, num_labels)
// pool: the first token (every family; ModernBERT's classifier_pooling "cls") or the mean of
// the row's real tokens (ModernBERT's "mean"). prediction_head.hpp has the families' dense
// layers: BERT's pooler (tanh, dropout hidden_dropout_prob), DistilBERT's pre_classifier (ReLU,
// seq_classif_dropout), RoBERTa's classifier.dense (tanh; W_c = classifier.out_proj, and the
// pooled row is dropped out before the dense layer as well), ModernBERT's head (GELU, norm;
// classifier_dropout). Loss: cross-entropy, or MSE when num_labels == 1.
// Multiple choice (<Family>ForMultipleChoice): the same on every choice's row with one output
// (classifier, H -> 1; RoBERTa: its encoder pooler instead of its classification head's dense
// layer; ELECTRA: SequenceSummary's dense and GELU), the (B, 1) scores viewed as (B / choices, choices), cross-entropy over the choices.
#include <cstdint>
#include <span>
#include <vector>

#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"
#include "prediction_head.hpp"
#include "task_head.hpp"

namespace shmtrain::model {

class ClassificationHead final : public TaskHead {
 public:
  ClassificationHead(const BertConfig& config, const ParamTable& table, std::span<float> params,
                     std::span<float> grads);

  float forward(const float* hidden, const data::Batch& batch, const StepContext& context) override;
  void backward(float* dhidden, float loss_scale) override;
  std::span<const float> logits() const override { return logits_; }
  // Multiple choice: b is an example, its choices' scores.
  std::span<const float> row_logits(std::int64_t b) const override {
    const auto width = static_cast<std::size_t>(config_.head == ModelHead::kMultipleChoice
                                                    ? batch_->choices
                                                    : config_.num_labels());
    return std::span<const float>(logits_).subspan(static_cast<std::size_t>(b) * width, width);
  }
  std::int64_t first_offset() const override { return dense_.first_offset(); }

 private:
  // Multiple choice with a dense layer of its own (RoBERTa's encoder pooler, ELECTRA's sequence
  // summary): no dropout before it, its own rate after it.
  static bool own_choice_dense(const BertConfig& config);
  float dropout_p() const;        // before the classifier
  float input_dropout_p() const;  // before the dense layer, where the family has one
  // A listwise reranker's loss over the batch's lists (ListNet or LambdaLoss), its gradient of
  // the batch's mean left in probs_ for backward.
  float listwise_forward(const data::Batch& batch);

  BertConfig config_;
  bool mean_pooling_;
  bool dropout_first_;  // RoBERTa, ELECTRA, DeBERTa: dropout before the dense layer too
  PredictionHead dense_;
  const float *classifier_w_, *classifier_b_;
  float *d_classifier_w_, *d_classifier_b_;

  const data::Batch* batch_ = nullptr;
  StepContext context_;
  const float* pooled_ = nullptr;                                      // the prediction head's output
  std::vector<float> cls_, cls_dropped_, pooled_dropped_, dpooled_, dcls_;  // (B, H)
  std::vector<float> logits_, probs_;                                  // (B, L)
};

}  // namespace shmtrain::model
