#pragma once
// Internal to model: the token-classification head (HF BertForTokenClassification,
// DistilBertForTokenClassification, RobertaForTokenClassification, XLM-R's):
//   logits = dropout(h) W_c^T + b_c              (N, num_labels): every token of the layout
//   loss   = mean over the tokens whose label is not -100 of CE(logits, label)
// (PyTorch's CrossEntropyLoss with ignore_index -100), times the batch's loss_weight, which
// the trainer sets so that the step's gradient is the mean over the global batch's labelled
// tokens. The dropout rate is hidden_dropout_prob (DistilBERT's dropout) for BERT's families.
// ModernBertForTokenClassification runs its prediction head (head.dense, GELU, head.norm) on
// every token first: logits = dropout(head(h)) W_c^T + b_c, dropout classifier_dropout.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"
#include "prediction_head.hpp"
#include "task_head.hpp"

namespace shmtrain::model {

class TokenHead final : public TaskHead {
 public:
  TokenHead(const BertConfig& config, const ParamTable& table, std::span<float> params, std::span<float> grads);

  float forward(const float* hidden, const data::Batch& batch, const StepContext& context) override;
  void backward(float* dhidden, float loss_scale) override;
  std::span<const float> logits() const override { return logits_; }
  // Row b's tokens' logits, (row length, num_labels).
  std::span<const float> row_logits(std::int64_t b) const override {
    const auto labels = static_cast<std::size_t>(config_.num_labels());
    return std::span<const float>(logits_).subspan(static_cast<std::size_t>(batch_->row_begin(b)) * labels,
                                                   static_cast<std::size_t>(batch_->row_length(b)) * labels);
  }
  std::int64_t first_offset() const override { return first_offset_; }

 private:
  float dropout_p() const;

  BertConfig config_;
  // ModernBERT's prediction head on every token before the classifier (Architecture::
  // token_heads_use_pooler); absent for BERT's families.
  std::optional<PredictionHead> dense_;
  const float *weight_, *bias_;
  float *d_weight_, *d_bias_;
  std::int64_t first_offset_;

  const data::Batch* batch_ = nullptr;
  StepContext context_;
  const float* dense_out_ = nullptr;    // the prediction head's output, or the hidden states
  std::vector<float> d_dense_out_;     // (N, H), with a prediction head
  const float* input_ = nullptr;  // the hidden states, or dropped_ under dropout
  std::vector<float> dropped_;    // (N, H)
  std::vector<float> logits_;     // (N, L)
  std::vector<float> dlogits_;    // (N, L): softmax, then d(loss)/d(logits)
  std::int64_t labelled_ = 0;     // tokens with a label in the batch
};

}  // namespace shmtrain::model
