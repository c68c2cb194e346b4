#pragma once
// Internal to model: the extractive question-answering head (HF BertForQuestionAnswering,
// DistilBertForQuestionAnswering):
//   logits = dropout(h) W_qa^T + b_qa        (B*T, 2): each token's start and end logit
//   loss   = (CE(start logits over T, start_position) + CE(end logits, end_position)) / 2,
// each cross-entropy the mean over the batch, over every position (padding included, as HF).
// BERT has no dropout here; DistilBERT's is qa_dropout.
#include <cstdint>
#include <span>
#include <vector>

#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"
#include "task_head.hpp"

namespace shmtrain::model {

class QaHead final : public TaskHead {
 public:
  QaHead(const BertConfig& config, const ParamTable& table, std::span<float> params, std::span<float> grads);

  float forward(const float* hidden, const data::Batch& batch, const StepContext& context) override;
  void backward(float* dhidden, float loss_scale) override;
  // (B, T, 2): the start and end logit of each token.
  std::span<const float> logits() const override { return logits_; }
  std::int64_t first_offset() const override { return first_offset_; }

 private:
  float dropout_p() const;

  BertConfig config_;
  const float *weight_, *bias_;
  float *d_weight_, *d_bias_;
  std::int64_t first_offset_;

  const data::Batch* batch_ = nullptr;
  StepContext context_;
  const float* input_ = nullptr;         // the hidden states, or dropped_ under dropout
  std::vector<float> dropped_;           // (B*T, H)
  std::vector<float> logits_, dlogits_;  // (B*T, 2)
  std::vector<float> start_logits_, end_logits_, start_probs_, end_probs_;  // (B, T)
};

}  // namespace shmtrain::model
