#include "shmtrain/model/encoder_model.hpp"

#include <algorithm>

#include "backbone.hpp"
#include "classification_head.hpp"
#include "masked_lm_head.hpp"
#include "qa_head.hpp"
#include "model/sentence/sentence_head.hpp"
#include "shmtrain/model/row_dropout.hpp"
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
  chunks_.clear();
  if (sentence_head_ != nullptr && context.train &&
      config_.sentence.loss == sentence::SentenceLoss::kCachedMultipleNegativesRanking) {
    return forward_in_chunks(batch, context);
  }
  const float* hidden = backbone_->forward(batch, context);
  return head_->forward(hidden, batch, context);
}

void EncoderModel::backward(float loss_scale, const GradientsFinal& gradients_final) {
  if (!chunks_.empty()) {
    backward_in_chunks(loss_scale, gradients_final);
    return;
  }
  head_->backward(backbone_->output_grad(), loss_scale);
  if (gradients_final) gradients_final(head_->first_offset());
  backbone_->backward(gradients_final);
}

float EncoderModel::forward_in_chunks(const data::Batch& batch, const StepContext& context) {
  const std::int64_t size = std::max<std::int64_t>(config_.sentence.mini_batch_size, 1);
  chunk_context_ = context;
  for (std::int64_t first = 0; first < batch.batch; first += size) {
    data::Batch chunk = data::slice_rows(batch, first, std::min(size, batch.batch - first));
    if (chunk.row_ids.empty()) {  // keep the whole batch's numbering: the masks are the rows'
      for (std::int64_t r = 0; r < chunk.batch; ++r) {
        chunk.row_ids.push_back(static_cast<std::int64_t>(dropout_row_id(batch, context, first + r)));
      }
    }
    chunks_.push_back(std::move(chunk));
  }
  // chunks_ no longer moves: the encoder keeps pointing at the last chunk until backward.
  sentence_head_->begin_batch(batch);
  for (std::size_t i = 0; i < chunks_.size(); ++i) {
    sentence_head_->embed_rows(backbone_->forward(chunks_[i], context), chunks_[i], static_cast<std::int64_t>(i) * size);
  }
  return sentence_head_->loss(batch);
}

void EncoderModel::backward_in_chunks(float loss_scale, const GradientsFinal& gradients_final) {
  // The last chunk first: the encoder still holds its activations from forward. Every other
  // chunk is run again; the gradients are final only after the last backward.
  const std::int64_t size = std::max<std::int64_t>(config_.sentence.mini_batch_size, 1);
  for (std::size_t i = chunks_.size(); i-- > 0;) {
    const data::Batch& chunk = chunks_[i];
    if (i + 1 < chunks_.size()) backbone_->forward(chunk, chunk_context_);
    sentence_head_->backward_rows(backbone_->output_grad(), chunk, static_cast<std::int64_t>(i) * size, loss_scale);
    const bool last = i == 0;
    if (last && gradients_final) gradients_final(head_->first_offset());
    backbone_->backward(last ? gradients_final : GradientsFinal{});
  }
  chunks_.clear();
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
