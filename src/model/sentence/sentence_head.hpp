#pragma once
// Internal to model: sentence-transformers' modules after the encoder, as a task head. The
// batch holds E examples of K texts each, example-major (data::Target::kTexts: rows e*K + k);
// Pooling gives each row a vector, Normalize (when set) makes it unit length, and in training
// the loss (config.sentence) is taken over them:
//   ranking losses   anchors = column 0, candidates = columns 1..K-1 (positives, negatives);
//                    with a RowExchange, every worker's candidates (gather_across_devices),
//                    each anchor's label offset by its worker's place in the gathered pool
//   scored pairs     column 0 against column 1, against the batch's targets (K must be 2)
// times batch.loss_weight (the trainer's share of the global batch, so P workers train what
// one worker trains on the whole batch). The gradient on the embeddings is taken in forward
// (the losses are not row-wise) and carried back in backward, through the exchange's
// scatter_sum, the normalisation and the pooling.
// The outputs (logits()) are the embeddings: example e's K rows, (E, K x H).
#include <memory>
#include <vector>

#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/sentence/embedding_loss.hpp"
#include "shmtrain/model/sentence/pooling.hpp"
#include "shmtrain/model/sentence/row_exchange.hpp"
#include "model/task_head.hpp"

namespace shmtrain::model::sentence {

class SentenceHead final : public TaskHead {
 public:
  explicit SentenceHead(const BertConfig& config, std::int64_t end_offset);

  void set_row_exchange(RowExchange* exchange) { exchange_ = exchange; }

  float forward(const float* hidden, const data::Batch& batch, const StepContext& context) override;
  void backward(float* dhidden, float loss_scale) override;
  std::span<const float> logits() const override { return embeddings_; }
  std::span<const float> row_logits(std::int64_t b) const override;
  std::int64_t first_offset() const override { return end_offset_; }

  // GradCache (CachedMultipleNegativesRankingLoss): forward and backward a chunk of rows at a
  // time. begin_batch, embed_rows for each chunk (its first row's place in the batch), loss
  // over the whole batch (its gradient on every embedding kept), then backward_rows for each
  // chunk, its hidden states computed again. forward() is all of it at once.
  void begin_batch(const data::Batch& batch);
  void embed_rows(const float* hidden, const data::Batch& rows, std::int64_t first_row);
  float loss(const data::Batch& batch);
  void backward_rows(float* dhidden, const data::Batch& rows, std::int64_t first_row, float loss_scale);

 private:
  std::unique_ptr<EmbeddingLoss> make_loss(std::int64_t examples, std::int64_t texts, const data::Batch& batch,
                                           std::int64_t& candidate_rows);

  BertConfig config_;
  std::int64_t end_offset_;  // no parameters: the arena's end
  Pooling pooling_;
  RowExchange* exchange_ = nullptr;
  const data::Batch* batch_ = nullptr;
  bool exchanged_ = false;      // this forward gathered every worker's candidates
  std::vector<float> pooled_;      // (rows, H), the batch's row order
  std::vector<float> embeddings_;  // (rows, H): pooled_, normalised when config says
  std::vector<float> dembeddings_;  // (rows, H): d(loss)/d(embeddings), from forward
};

}  // namespace shmtrain::model::sentence
