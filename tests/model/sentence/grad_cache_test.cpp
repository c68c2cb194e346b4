// CachedMultipleNegativesRankingLoss (GradCache, EncoderModel::forward_in_chunks): the encoder
// run mini_batch_size rows at a time, then again chunk by chunk for the backward, gives
// MultipleNegativesRankingLoss's loss and every parameter's gradient, with dropout on (a row's
// masks are keyed by its id, so both passes draw the same), packed and padded, with and without
// row ids, on BERT and ModernBERT; and it tells the gradients final as the plain model does.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model/fixture_batches.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "support/test_support.hpp"

namespace shmtrain::model {
namespace {

namespace fs = std::filesystem;
using sentence::SentenceLoss;

struct StepOutcome {
  float loss = 0;
  std::vector<float> grads;
  std::vector<std::int64_t> final_offsets;
};

// `examples` triplets (anchor, positive, negative) of random words, rows example-major.
data::Batch triplets(std::int64_t examples, std::int64_t vocab, bool with_row_ids) {
  std::mt19937 random(7);
  std::uniform_int_distribution<std::int32_t> word(5, static_cast<std::int32_t>(vocab) - 1);
  std::uniform_int_distribution<std::int32_t> length(3, 12);
  data::Batch b;
  b.choices = 3;
  b.batch = examples * 3;
  b.offsets = {0};
  for (std::int64_t r = 0; r < b.batch; ++r) {
    const std::int32_t n = length(random);
    b.input_ids.push_back(2);
    for (std::int32_t t = 0; t < n - 2; ++t) b.input_ids.push_back(word(random));
    b.input_ids.push_back(3);
    b.offsets.push_back(static_cast<std::int32_t>(b.input_ids.size()));
    b.seq = std::max<std::int64_t>(b.seq, n);
    if (with_row_ids) b.row_ids.push_back(1000 + 3 * r);
  }
  b.token_type_ids.assign(b.input_ids.size(), 0);
  return b;
}

// The same rows padded to the longest.
data::Batch padded_copy(const data::Batch& packed) {
  data::Batch out = packed;
  out.offsets.clear();
  out.input_ids.assign(static_cast<std::size_t>(packed.batch * packed.seq), 0);
  out.token_type_ids = out.input_ids;
  out.attention_mask = out.input_ids;
  for (std::int64_t b = 0; b < packed.batch; ++b) {
    for (std::int64_t t = 0; t < packed.row_length(b); ++t) {
      out.input_ids[b * packed.seq + t] = packed.input_ids[packed.row_begin(b) + t];
      out.attention_mask[b * packed.seq + t] = 1;
    }
  }
  return out;
}

class GradCache : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const fs::path folder = testing::fixtures_dir() / "sentence_embedding" / GetParam();
    config_ = read_hf_config(folder / "config.json");
    config_.head = ModelHead::kSentenceEmbedding;
    config_.hidden_dropout_prob = config_.attention_probs_dropout_prob = config_.embedding_dropout = 0.1;
    table_.emplace(ParamTable::for_model(config_));
    params_.assign(static_cast<std::size_t>(table_->count()), 0.0f);
    load_model_weights(folder / "model.safetensors", *table_, params_, config_, 0);
  }

  StepOutcome step(const data::Batch& batch, SentenceLoss loss, std::int64_t mini_batch_size, bool normalize) {
    BertConfig config = config_;
    config.sentence.loss = loss;
    config.sentence.mini_batch_size = mini_batch_size;
    config.sentence.normalize = normalize;
    StepOutcome r;
    r.grads.assign(params_.size(), 0.0f);
    EncoderModel model(config, *table_, params_, r.grads);
    r.loss = model.forward(batch, {.train = true, .seed = 3, .rank = 1, .step = 5});
    model.backward(0.5f, [&](std::int64_t offset) { r.final_offsets.push_back(offset); });
    return r;
  }

  BertConfig config_;
  std::optional<ParamTable> table_;
  std::vector<float> params_;
};

TEST_P(GradCache, EqualsTheUncachedLossAndGradientsWithDropoutOn) {
  for (const bool with_row_ids : {true, false}) {
    for (const bool padded : {false, true}) {
      for (const bool normalize : {false, true}) {
        SCOPED_TRACE(::testing::Message() << "row ids " << with_row_ids << ", padded " << padded << ", normalize "
                                          << normalize);
        const data::Batch packed = triplets(6, config_.vocab_size, with_row_ids);
        const data::Batch batch = padded ? padded_copy(packed) : packed;
        const StepOutcome plain = step(batch, SentenceLoss::kMultipleNegativesRanking, 32, normalize);
        const StepOutcome dropout_off = [&] {
          const BertConfig kept = config_;
          config_.hidden_dropout_prob = config_.attention_probs_dropout_prob = config_.embedding_dropout = 0.0;
          StepOutcome r = step(batch, SentenceLoss::kMultipleNegativesRanking, 32, normalize);
          config_ = kept;
          return r;
        }();
        ASSERT_GT(std::abs(plain.loss - dropout_off.loss), 1e-4) << "dropout must change the loss for this test";
        // 18 rows: chunks of 4 (the last of 2), of 1, and one chunk holding all of them.
        for (const std::int64_t mini : {4, 1, 18, 64}) {
          SCOPED_TRACE(::testing::Message() << "mini_batch_size " << mini);
          const StepOutcome cached = step(batch, SentenceLoss::kCachedMultipleNegativesRanking, mini, normalize);
          EXPECT_NEAR(cached.loss, plain.loss, 1e-6 * std::abs(plain.loss));
          EXPECT_LT(testing::relative_difference(cached.grads, plain.grads), 2e-6);
          EXPECT_EQ(cached.final_offsets, plain.final_offsets);
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Families, GradCache, ::testing::Values("bert_tiny", "modernbert_tiny"));

}  // namespace
}  // namespace shmtrain::model
