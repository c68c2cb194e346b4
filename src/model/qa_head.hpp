#pragma once
// Internal to model: the extractive question-answering head (HF BertForQuestionAnswering,
// DistilBertForQuestionAnswering):
//   logits = dropout(h) W_qa^T + b_qa        (N, 2): each token's start and end logit
//   loss   = (CE(start logits over the row, start_position) + CE(end logits, end_position)) / 2,
// each cross-entropy the mean over the batch. A padded row's softmax runs over every position,
// the padding included (as HF's); a packed row has no padding, so its softmax runs over its
// own tokens: the loss of a batch padded to max_length depends on the padding, the packed one
// does not (the logits of the real tokens are the same).
// BERT has no dropout here; DistilBERT's is qa_dropout. ModernBertForQuestionAnswering runs its
// prediction head on every token first and names the linear "classifier":
// logits = dropout(head(h)) W^T + b, dropout classifier_dropout.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"
#include "prediction_head.hpp"
#include "task_head.hpp"

namespace shmtrain::model {

class QaHead final : public TaskHead {
 public:
  QaHead(const BertConfig& config, const ParamTable& table, std::span<float> params, std::span<float> grads);

  float forward(const float* hidden, const data::Batch& batch, const StepContext& context) override;
  void backward(float* dhidden, float loss_scale) override;
  // (N, 2): the start and end logit of each token of the batch's layout.
  std::span<const float> logits() const override { return logits_; }
  std::span<const float> row_logits(std::int64_t b) const override {
    return std::span<const float>(logits_).subspan(static_cast<std::size_t>(2 * batch_->row_begin(b)),
                                                   static_cast<std::size_t>(2 * batch_->row_length(b)));
  }
  std::int64_t first_offset() const override { return first_offset_; }

 private:
  float dropout_p() const;
  // The two cross-entropies' backward: the softmax caches become d(loss)/d(logits).
  void loss_backward(float loss_scale);

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
  const float* input_ = nullptr;         // the hidden states, or dropped_ under dropout
  std::vector<float> dropped_;           // (N, H)
  std::vector<float> logits_, dlogits_;  // (N, 2)
  std::vector<float> start_logits_, end_logits_, start_probs_, end_probs_;  // (N)
};

}  // namespace shmtrain::model
