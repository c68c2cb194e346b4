#pragma once
// Internal to model: <Family>ForMaskedLM's head (BertOnlyMLMHead, RobertaLMHead, DistilBERT's
// vocab_transform/vocab_layer_norm/vocab_projector, ModernBERT's head + decoder):
//   t = norm(GELU(x W_d^T + b_d));  logits = t E^T + b          E: the word embeddings (tied)
// and the mean cross-entropy over the labelled tokens (label != -100), times batch.loss_weight
// (the global batch's token mean, as token classification weighs it).
// Only the labelled rows reach the vocabulary: Hugging Face projects every token onto the
// vocabulary and its loss then ignores ~85% of them; gathering the ~15% first gives the same loss
// and gradients for a fraction of the largest product (30,522 columns for BERT, 250,002 for XLM-R).
// The decoder's gradient adds into the word embeddings' (the lookup adds its own in the backbone).
#include <cstdint>
#include <span>
#include <vector>

#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"
#include "prediction_head.hpp"
#include "task_head.hpp"

namespace shmtrain::model {

class MaskedLmHead final : public TaskHead {
 public:
  MaskedLmHead(const BertConfig& config, const ParamTable& table, std::span<float> params, std::span<float> grads);

  float forward(const float* hidden, const data::Batch& batch, const StepContext& context) override;
  void backward(float* dhidden, float loss_scale) override;
  // Per row of the batch: {the sum of its labelled tokens' losses, their count, how many of them
  // the highest logit predicts}; evaluation sums them over a dataset (eval_loss = sum / count,
  // a token mean; run_mlm's eval_accuracy = predicted / count).
  std::span<const float> logits() const override { return row_losses_; }
  std::span<const float> row_logits(std::int64_t b) const override {
    return std::span<const float>(row_losses_).subspan(static_cast<std::size_t>(b) * 3, 3);
  }
  std::int64_t first_offset() const override { return transform_.first_offset(); }

 private:
  std::int64_t hidden_, vocab_;
  PredictionHead transform_;
  const float* embeddings_;  // (V, H), the decoder's weight
  float* d_embeddings_;
  const float* bias_;  // (V), or null (ModernBERT's decoder_bias false)
  float* d_bias_;

  const data::Batch* batch_ = nullptr;
  std::vector<std::int64_t> labelled_;  // the labelled tokens' indices in the layout
  std::vector<float> gathered_, dtransformed_, dgathered_;  // (M, H)
  const float* transformed_ = nullptr;                     // the transform's output (M, H)
  std::vector<float> probs_;                 // (M, V): softmax, then d(loss)/d(logits)
  std::vector<double> token_loss_;           // (M)
  std::vector<std::uint8_t> token_hit_;      // (M): the argmax is the label
  std::vector<float> row_losses_;            // (B, 3)
};

}  // namespace shmtrain::model
