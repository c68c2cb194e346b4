#pragma once
// Internal to model: the sequence-classification heads, one computation on h[CLS]:
//   pooled = act(h[CLS] W_d^T + b_d);  logits = dropout(pooled) W_c^T + b_c     (B, num_labels)
// BERT (BertForSequenceClassification): W_d = bert.pooler.dense, act = tanh, dropout
// hidden_dropout_prob. DistilBERT (DistilBertForSequenceClassification): W_d = pre_classifier,
// act = ReLU, dropout seq_classif_dropout. RoBERTa (RobertaClassificationHead): W_d =
// classifier.dense, act = tanh, W_c = classifier.out_proj, and h[<s>] is dropped out before
// W_d as well. Loss: cross-entropy, or MSE when num_labels == 1.
#include <cstdint>
#include <span>
#include <vector>

#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"
#include "task_head.hpp"

namespace shmtrain::model {

class ClassificationHead final : public TaskHead {
 public:
  ClassificationHead(const BertConfig& config, const ParamTable& table, std::span<float> params,
                     std::span<float> grads);

  float forward(const float* hidden, const data::Batch& batch, const StepContext& context) override;
  void backward(float* dhidden, float loss_scale) override;
  std::span<const float> logits() const override { return logits_; }
  std::span<const float> row_logits(std::int64_t b) const override {
    const auto labels = static_cast<std::size_t>(config_.num_labels());
    return std::span<const float>(logits_).subspan(static_cast<std::size_t>(b) * labels, labels);
  }
  std::int64_t first_offset() const override { return first_offset_; }

 private:
  float dropout_p() const;

  BertConfig config_;
  bool relu_;           // DistilBERT; else tanh
  bool dropout_first_;  // RoBERTa: dropout before the dense layer too
  const float *dense_w_, *dense_b_, *classifier_w_, *classifier_b_;
  float *d_dense_w_, *d_dense_b_, *d_classifier_w_, *d_classifier_b_;
  std::int64_t first_offset_;

  const data::Batch* batch_ = nullptr;
  StepContext context_;
  std::vector<float> cls_, cls_dropped_, pooled_pre_, pooled_, pooled_dropped_, dpooled_;  // (B, H)
  std::vector<float> logits_, probs_;                                        // (B, L)
};

}  // namespace shmtrain::model
