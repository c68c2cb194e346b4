#include "shmtrain/model/encoder_model.hpp"

#include "backbone.hpp"
#include "classification_head.hpp"
#include "masked_lm_head.hpp"
#include "qa_head.hpp"
#include "model/sentence/sentence_head.hpp"
#include "token_head.hpp"

namespace shmtrain::model {

EncoderModel::EncoderModel(const BertConfig& config, const ParamTable& table, std::span<float> params,
                           std::span<float> grads)
    : config_(config), backbone_(std::make_unique<Backbone>(config, table, params, grads)) {
  if (config.head == ModelHead::kSentenceEmbedding) {
    auto head = std::make_unique<sentence::SentenceHead>(config, static_cast<std::int64_t>(table.count()));
    sentence_head_ = head.get();
    head_ = std::move(head);
  } else if (config.head == ModelHead::kQuestionAnswering) {
    head_ = std::make_unique<QaHead>(config, table, params, grads);
  } else if (config.head == ModelHead::kMaskedLm) {
    head_ = std::make_unique<MaskedLmHead>(config, table, params, grads);
  } else if (config.head == ModelHead::kTokenClassification) {
    head_ = std::make_unique<TokenHead>(config, table, params, grads);
  } else {
    head_ = std::make_unique<ClassificationHead>(config, table, params, grads);
  }
}

EncoderModel::~EncoderModel() = default;

float EncoderModel::forward(const data::Batch& batch, const StepContext& context) {
  const float* hidden = backbone_->forward(batch, context);
  return head_->forward(hidden, batch, context);
}

void EncoderModel::backward(float loss_scale, const GradientsFinal& gradients_final) {
  head_->backward(backbone_->output_grad(), loss_scale);
  if (gradients_final) gradients_final(head_->first_offset());
  backbone_->backward(gradients_final);
}

void EncoderModel::set_row_exchange(sentence::RowExchange* exchange) {
  if (sentence_head_ != nullptr) sentence_head_->set_row_exchange(exchange);
}

void EncoderModel::set_bf16_weights(std::span<const tensor::bf16> weights16) {
  backbone_->set_bf16_weights(weights16);
}

bool EncoderModel::uses_bf16() const { return backbone_->uses_bf16(); }

std::span<const float> EncoderModel::logits() const { return head_->logits(); }

std::span<const float> EncoderModel::row_logits(std::int64_t b) const { return head_->row_logits(b); }

}  // namespace shmtrain::model
