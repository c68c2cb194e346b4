#pragma once
// A BERT-class encoder with its task head, the Hugging Face class config.architecture() names:
// BertForSequenceClassification, BertForQuestionAnswering, DistilBertForSequenceClassification
// or DistilBertForQuestionAnswering (src/model/: backbone.hpp, classification_head.hpp,
// qa_head.hpp). Parameters and gradients are views into caller-owned arenas laid out by
// ParamTable::for_model(config); this class owns only the activations of the last forward.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "shmtrain/data/batch.hpp"
#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"
#include "shmtrain/model/sentence/row_exchange.hpp"
#include "shmtrain/model/step_context.hpp"
#include "shmtrain/tensor/bf16.hpp"

namespace shmtrain::model {

class Backbone;
class TaskHead;
namespace sentence {
class SentenceHead;
}

class EncoderModel {
 public:
  // REQUIRES: params and grads hold table.count() floats laid out by `table`.
  EncoderModel(const BertConfig& config, const ParamTable& table, std::span<float> params,
               std::span<float> grads);
  ~EncoderModel();
  EncoderModel(const EncoderModel&) = delete;
  EncoderModel& operator=(const EncoderModel&) = delete;

  // Runs the model; returns the mean loss over the batch (NaN when the batch has no labels,
  // targets or answer positions). REQUIRES: batch.validate(config) passed, and `batch` alive
  // until backward. CachedMultipleNegativesRankingLoss in training (GradCache): the encoder
  // runs sentence.mini_batch_size rows at a time keeping only their embeddings, and backward
  // runs each chunk again (the same dropout masks: they are keyed by row id) before its own
  // backward, so activations are held for one chunk, never the batch.
  float forward(const data::Batch& batch, const StepContext& context);

  // Accumulates d(loss)/d(params) into the gradient arena, scaled by loss_scale (1 / the
  // number of accumulated micro-batches); tells `gradients_final` (when set) as the gradients
  // of each part are done: the head, the layers from the last, the embeddings (offset 0).
  // REQUIRES: the last forward was a training one with labels (answer positions).
  void backward(float loss_scale = 1.0f, const GradientsFinal& gradients_final = {});

  // --bf16: the encoder layers' linears and attention products run in bf16, their weights read
  // from `weights16`, a bf16 copy of the parameter arena (same layout) that the caller keeps
  // current. The embeddings and the head stay in float. An empty span: float32.
  void set_bf16_weights(std::span<const tensor::bf16> weights16);
  bool uses_bf16() const;

  // kSentenceEmbedding with gather_across_devices: the candidates of every worker reach the
  // loss through `exchange` (owned by the caller, alive while the model trains); null: each
  // worker's own. Ignored by the other heads.
  void set_row_exchange(sentence::RowExchange* exchange);

  // The last forward's logits: (B, num_labels) for classification; (N, 2) for question
  // answering, the start and end logit of each token of the batch's layout (padded: B x T).
  std::span<const float> logits() const;
  // Row b's part of logits(): its num_labels scores, or its tokens' (start, end) pairs (the
  // padding included in a padded batch, none in a packed one).
  std::span<const float> row_logits(std::int64_t b) const;
  const BertConfig& config() const { return config_; }

 private:
  float forward_in_chunks(const data::Batch& batch, const StepContext& context);
  void backward_in_chunks(float loss_scale, const GradientsFinal& gradients_final);

  BertConfig config_;
  std::unique_ptr<Backbone> backbone_;
  // GradCache's chunks of the last training forward (row ids always set) and its context.
  std::vector<data::Batch> chunks_;
  StepContext chunk_context_;
  std::unique_ptr<TaskHead> head_;
  sentence::SentenceHead* sentence_head_ = nullptr;  // head_, when it is one
};

}  // namespace shmtrain::model
