#include "sentence_head.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "model/fit.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/model/sentence/normalize.hpp"

namespace shmtrain::model::sentence {

SentenceHead::SentenceHead(const BertConfig& config, std::int64_t end_offset)
    : config_(config), end_offset_(end_offset), pooling_(config.sentence.pooling) {}

std::span<const float> SentenceHead::row_logits(std::int64_t b) const {
  const std::int64_t texts = std::max<std::int64_t>(batch_->choices, 1);
  const std::int64_t width = texts * config_.hidden_size;
  return std::span<const float>(embeddings_).subspan(static_cast<std::size_t>(b * width), static_cast<std::size_t>(width));
}

std::unique_ptr<EmbeddingLoss> SentenceHead::make_loss(std::int64_t examples, std::int64_t texts,
                                                       const data::Batch& batch, std::int64_t& candidate_rows) {
  const SentenceOptions& o = config_.sentence;
  std::unique_ptr<EmbeddingLoss> loss;
  if (scores_pairs(o.loss)) {
    if (texts != 2) {
      fail_input("--loss {}: an example is a pair of sentences and its score; these have {} text columns",
                 sentence_loss_name(o.loss), texts);
    }
    loss = make_scored_pair_loss({.pairs = examples,
                                  .labels = batch.targets,
                                  .scale = o.scale,
                                  .similarity = o.loss == SentenceLoss::kAnglE ? PairSimilarity::kAngle
                                                                               : PairSimilarity::kCosine});
    candidate_rows = examples;  // the second sentences
  } else {
    if (texts < 2) {
      fail_input("--loss {}: an example needs an anchor and a positive; these have {} text column",
                 sentence_loss_name(o.loss), texts);
    }
    const std::int64_t local = (texts - 1) * examples;
    RankingLayout layout{.anchors = examples, .candidates = local, .labels = {}, .normalizer = 1.0, .scale = o.scale};
    layout.normalizer = static_cast<double>(std::max<std::int64_t>(examples, 1));
    std::int64_t first = 0;
    if (exchanged_) {
      layout.candidates = exchange_->total_rows();
      first = exchange_->rows_before(exchange_->rank());
    }
    for (std::int64_t e = 0; e < examples; ++e) layout.labels.push_back(first + e);
    loss = make_ranking_loss(std::move(layout));
    candidate_rows = exchanged_ ? exchange_->total_rows() : local;
  }
  if (!o.matryoshka_dims.empty()) loss = make_matryoshka_loss(std::move(loss), o.matryoshka_dims, o.matryoshka_weights);
  return loss;
}

float SentenceHead::forward(const float* hidden, const data::Batch& batch, const StepContext& context) {
  begin_batch(batch);
  embed_rows(hidden, batch, 0);
  return context.train ? loss(batch) : std::numeric_limits<float>::quiet_NaN();
}

void SentenceHead::begin_batch(const data::Batch& batch) {
  batch_ = &batch;
  fit(pooled_, batch.batch * config_.hidden_size);
  fit(embeddings_, batch.batch * config_.hidden_size);
}

void SentenceHead::embed_rows(const float* hidden, const data::Batch& rows, std::int64_t first_row) {
  const std::int64_t h = config_.hidden_size;
  float* pooled = pooled_.data() + first_row * h;
  float* embeddings = embeddings_.data() + first_row * h;
  pooling_.forward(pooled, hidden, rows, h);
  if (config_.sentence.normalize) {
    normalize_rows_forward(embeddings, h, pooled, h, rows.batch, h);
  } else {
    std::copy(pooled, pooled + rows.batch * h, embeddings);
  }
}

float SentenceHead::loss(const data::Batch& batch) {
  const std::int64_t h = config_.hidden_size;
  const std::int64_t rows = batch.batch;
  const std::int64_t texts = std::max<std::int64_t>(batch.choices, 1);
  const std::int64_t examples = rows / texts;

  // The loss's matrix: anchors (column 0) then the candidates (columns 1.., column-major; every
  // worker's with the exchange), or the pairs' two columns.
  const bool ranking = !scores_pairs(config_.sentence.loss);
  exchanged_ = ranking && exchange_ != nullptr;
  const std::int64_t local_candidates = ranking ? (texts - 1) * examples : examples;
  std::vector<float> local(static_cast<std::size_t>(local_candidates * h));
  for (std::int64_t k = 1; k < texts; ++k) {
    for (std::int64_t e = 0; e < examples; ++e) {
      const float* from = embeddings_.data() + (e * texts + k) * h;
      std::copy(from, from + h, local.begin() + ((k - 1) * examples + e) * h);
    }
  }
  if (exchanged_) exchange_->begin(local_candidates);
  std::int64_t candidate_rows = 0;
  const std::unique_ptr<EmbeddingLoss> loss = make_loss(examples, texts, batch, candidate_rows);
  if (loss->rows() != examples + candidate_rows) throw Error("SentenceHead: the loss's rows differ from the batch's");
  std::vector<float> matrix(static_cast<std::size_t>((examples + candidate_rows) * h));
  for (std::int64_t e = 0; e < examples; ++e) {
    const float* from = embeddings_.data() + e * texts * h;
    std::copy(from, from + h, matrix.begin() + e * h);
  }
  std::span<float> candidates(matrix.data() + examples * h, static_cast<std::size_t>(candidate_rows * h));
  if (exchanged_) {
    exchange_->gather(local, h, candidates);
  } else {
    std::copy(local.begin(), local.end(), candidates.begin());
  }
  std::vector<float> dmatrix(matrix.size(), 0.0f);
  const double value = loss->forward_backward(matrix.data(), h, h, dmatrix.data(), batch.loss_weight);

  // Back to the batch's row order (example-major); the candidates' share after the exchange.
  fit(dembeddings_, rows * h);
  std::fill(dembeddings_.begin(), dembeddings_.begin() + rows * h, 0.0f);
  for (std::int64_t e = 0; e < examples; ++e) {
    std::copy(dmatrix.begin() + e * h, dmatrix.begin() + (e + 1) * h, dembeddings_.begin() + e * texts * h);
  }
  std::vector<float> dlocal(local.size());
  const std::span<const float> dcandidates(dmatrix.data() + examples * h, static_cast<std::size_t>(candidate_rows * h));
  if (exchanged_) {
    exchange_->scatter_sum(dcandidates, h, dlocal);
  } else {
    std::copy(dcandidates.begin(), dcandidates.end(), dlocal.begin());
  }
  for (std::int64_t k = 1; k < texts; ++k) {
    for (std::int64_t e = 0; e < examples; ++e) {
      const float* from = dlocal.data() + ((k - 1) * examples + e) * h;
      std::copy(from, from + h, dembeddings_.begin() + (e * texts + k) * h);
    }
  }
  return static_cast<float>(value) * batch.loss_weight;
}

void SentenceHead::backward(float* dhidden, float loss_scale) { backward_rows(dhidden, *batch_, 0, loss_scale); }

void SentenceHead::backward_rows(float* dhidden, const data::Batch& rows, std::int64_t first_row, float loss_scale) {
  const std::int64_t h = config_.hidden_size;
  const std::int64_t n = rows.batch * h;
  std::fill(dhidden, dhidden + rows.tokens() * h, 0.0f);
  std::vector<float> dpooled(static_cast<std::size_t>(n), 0.0f);
  const float* dembeddings = dembeddings_.data() + first_row * h;
  if (config_.sentence.normalize) {
    normalize_rows_backward_add(dpooled.data(), h, pooled_.data() + first_row * h, h, dembeddings, h, rows.batch, h);
  } else {
    std::copy(dembeddings, dembeddings + n, dpooled.begin());
  }
  for (float& v : dpooled) v *= loss_scale;
  pooling_.backward_add(dhidden, dpooled.data(), rows, h);
}

}  // namespace shmtrain::model::sentence
