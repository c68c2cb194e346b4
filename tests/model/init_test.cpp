// Random initialisation: HF's distributions, and values fixed by (seed, name) alone, the same
// on every compiler and standard library. The pinned values were also computed outside C++
// (a Python MT19937-64 and the same Box-Muller), so a change of the generator fails here.
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/init.hpp"
#include "shmtrain/model/param_table.hpp"

namespace shmtrain::model {
namespace {

ParamEntry entry(const std::string& name, std::vector<std::int64_t> shape, ParamKind kind = ParamKind::kWeight) {
  ParamEntry e;
  e.name = name;
  e.kind = kind;
  e.size = 1;
  for (const std::int64_t d : shape) e.size *= d;
  e.shape = std::move(shape);
  return e;
}

std::vector<float> initialised(const ParamEntry& e, std::uint64_t seed, const BertConfig& config = {}) {
  std::vector<float> values(static_cast<std::size_t>(e.size), -1.0f);
  init_parameter(e, values, config, seed);
  return values;
}

TEST(Init, ClassifierWeightOfSeed42IsPinned) {
  const std::vector<float> values = initialised(entry("classifier.weight", {2, 768}), 42);
  const std::vector<float> first(values.begin(), values.begin() + 8);
  EXPECT_EQ(first, (std::vector<float>{0x1.04020cp-8f, 0x1.d1589ap-8f, 0x1.bc2f6cp-10f, -0x1.05320cp-7f,
                                       0x1.ea6f5ap-8f, -0x1.1cbbd0p-5f, -0x1.21355cp-8f, -0x1.e77d48p-6f}));
}

TEST(Init, SeedAndNameDecideTheValues) {
  const ParamEntry classifier = entry("classifier.weight", {2, 768});
  EXPECT_EQ(initialised(classifier, 42), initialised(classifier, 42));
  EXPECT_NE(initialised(classifier, 42), initialised(classifier, 43));
  EXPECT_NE(initialised(classifier, 42), initialised(entry("qa_outputs.weight", {2, 768}), 42));
}

TEST(Init, NormalWithInitializerRangeZerosAndOnes) {
  BertConfig config;
  config.initializer_range = 0.05;
  // 2^18 draws: the sample mean's standard error is 0.05 / 512 ~ 1e-4 and the sample standard
  // deviation's 0.05 / sqrt(2 * 2^18) ~ 7e-5; the bounds are over 5 of those.
  const std::vector<float> w = initialised(entry("bert.encoder.layer.0.attention.self.query.weight", {512, 512}), 7, config);
  double sum = 0, sum_sq = 0;
  for (const float v : w) {
    sum += v;
    sum_sq += static_cast<double>(v) * v;
  }
  const double mean = sum / static_cast<double>(w.size());
  const double stddev = std::sqrt(sum_sq / static_cast<double>(w.size()) - mean * mean);
  EXPECT_NEAR(mean, 0.0, 6e-4);
  EXPECT_NEAR(stddev, 0.05, 4e-4);
  EXPECT_EQ(initialised(entry("classifier.bias", {2}, ParamKind::kBias), 7), std::vector<float>(2, 0.0f));
  EXPECT_EQ(initialised(entry("bert.embeddings.LayerNorm.weight", {4}, ParamKind::kNorm), 7), std::vector<float>(4, 1.0f));
  EXPECT_EQ(initialised(entry("bert.embeddings.LayerNorm.bias", {4}, ParamKind::kNorm), 7), std::vector<float>(4, 0.0f));
}

TEST(Init, PaddingRowOfTheWordEmbeddingsIsZero) {
  BertConfig config;
  config.vocab_size = 5;
  config.hidden_size = 4;
  config.pad_token_id = 2;
  const std::vector<float> table = initialised(entry("bert.embeddings.word_embeddings.weight", {5, 4}), 1, config);
  for (std::int64_t row = 0; row < 5; ++row) {
    for (std::int64_t col = 0; col < 4; ++col) {
      const float v = table[static_cast<std::size_t>(row * 4 + col)];
      if (row == 2) {
        EXPECT_EQ(v, 0.0f);
      } else {
        EXPECT_NE(v, 0.0f);
      }
    }
  }
}

}  // namespace
}  // namespace shmtrain::model
