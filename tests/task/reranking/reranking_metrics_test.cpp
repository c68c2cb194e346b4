// CrossEncoderRerankingEvaluator's MRR@k, NDCG@k and AP per query against its compute_metrics
// over scikit-learn (tools/make_reranking_metrics_reference.py): 300 lists with tied scores,
// some without a relevant candidate.
#include "shmtrain/task/reranking/reranking_metrics.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "support/test_support.hpp"

namespace shmtrain::task::reranking {
namespace {

TEST(RerankingMetrics, EqualTheEvaluatorsOverScikitLearnWithTies) {
  const auto file = nlohmann::json::parse(testing::read_file(testing::fixtures_dir() / "reranking" / "metrics.json"));
  ASSERT_EQ(file["cases"].size(), 300u);
  for (const auto& c : file["cases"]) {
    const auto relevant = c["relevant"].get<std::vector<std::uint8_t>>();
    const auto scores = c["scores"].get<std::vector<double>>();
    const QueryFigures f = rerank_figures(relevant, scores, c["at_k"].get<std::int64_t>());
    EXPECT_NEAR(f.mrr, c["mrr"].get<double>(), 1e-12) << c.dump();
    EXPECT_NEAR(f.ndcg, c["ndcg"].get<double>(), 1e-12) << c.dump();
    EXPECT_NEAR(f.ap, c["ap"].get<double>(), 1e-12) << c.dump();
  }
}

// CrossEncoderClassificationEvaluator's F1s: scikit-learn's f1_score, classes only predicted or
// only true included.
TEST(RerankingMetrics, F1ScoresEqualScikitLearns) {
  const auto file = nlohmann::json::parse(testing::read_file(testing::fixtures_dir() / "reranking" / "metrics.json"));
  ASSERT_EQ(file["f1_cases"].size(), 40u);
  for (const auto& c : file["f1_cases"]) {
    const auto truth = c["truth"].get<std::vector<std::int32_t>>();
    const auto predicted = c["predicted"].get<std::vector<std::int32_t>>();
    const F1Scores f1 = f1_scores(truth, predicted);
    EXPECT_NEAR(f1.macro, c["macro"].get<double>(), 1e-12) << c.dump();
    EXPECT_NEAR(f1.micro, c["micro"].get<double>(), 1e-12) << c.dump();
    EXPECT_NEAR(f1.weighted, c["weighted"].get<double>(), 1e-12) << c.dump();
  }
}

TEST(RerankingMetrics, ATiedPairSharesItsGain) {
  // Two candidates tied at the top, one relevant: NDCG averages the two places' discounts
  // (1 + 1/log2(3)) / 2; AP takes them together (precision 1/2); MRR puts the later first.
  const std::vector<std::uint8_t> relevant = {1, 0};
  const std::vector<double> scores = {0.5, 0.5};
  const QueryFigures f = rerank_figures(relevant, scores, 10);
  EXPECT_DOUBLE_EQ(f.ndcg, (1.0 + 1.0 / std::log2(3.0)) / 2.0);
  EXPECT_DOUBLE_EQ(f.ap, 0.5);
  EXPECT_DOUBLE_EQ(f.mrr, 0.5);
  EXPECT_THROW(rerank_figures(relevant, std::vector<double>{1.0}, 10), Error);
}

}  // namespace
}  // namespace shmtrain::task::reranking
