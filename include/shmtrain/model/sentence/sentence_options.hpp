#pragma once
// What a sentence-embedding run puts on the encoder, as sentence-transformers' modules and
// loss classes say it: the Pooling mode, a Normalize module or not, and the loss (its class
// name and defaults: scale 20, MatryoshkaLoss's dims and weights, CachedMNRL's mini_batch_size,
// gather_across_devices).
#include <cstdint>
#include <string>
#include <vector>

#include "shmtrain/model/sentence/pooling.hpp"

namespace shmtrain::model::sentence {

enum class SentenceLoss { kMultipleNegativesRanking, kCachedMultipleNegativesRanking, kCoSent, kAnglE };

// sentence-transformers' class names; throws InputError naming --loss and the names it knows.
SentenceLoss parse_sentence_loss(const std::string& name);
const char* sentence_loss_name(SentenceLoss loss);
// CoSENT and AnglE score pairs against a gold score; the ranking losses rank candidates.
inline bool scores_pairs(SentenceLoss loss) { return loss == SentenceLoss::kCoSent || loss == SentenceLoss::kAnglE; }

struct SentenceOptions {
  PoolingMode pooling = PoolingMode::kMean;
  bool normalize = false;
  SentenceLoss loss = SentenceLoss::kMultipleNegativesRanking;
  float scale = 20.0f;
  bool gather_across_devices = false;
  std::vector<std::int64_t> matryoshka_dims;  // empty: no MatryoshkaLoss
  std::vector<double> matryoshka_weights;     // empty: 1 each
  std::int64_t mini_batch_size = 32;          // CachedMultipleNegativesRankingLoss
  std::int64_t max_seq_length = 128;          // sentence_bert_config.json's
  bool do_lower_case = false;
};

}  // namespace shmtrain::model::sentence
