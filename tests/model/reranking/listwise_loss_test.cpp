// ListNetLoss and LambdaLoss (every weighting scheme) against sentence-transformers' code ported to
// PyTorch (tools/make_listwise_reranker_references.py writes tests/fixtures/reranking/
// listwise_losses.json: lists of unequal length, tied scores, tied and negative labels, a sigmoid
// past eps): the mean over the pairs (or lists) and its gradient by autograd.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/model/reranking/listwise_loss.hpp"
#include "support/test_support.hpp"

namespace shmtrain::model::reranking {
namespace {

using shmtrain::testing::fixtures_dir;
using shmtrain::testing::read_file;

nlohmann::json cases() {
  return nlohmann::json::parse(read_file(fixtures_dir() / "reranking" / "listwise_losses.json"))["cases"];
}

TEST(ListwiseLoss, EqualsSentenceTransformersWithItsGradient) {
  int checked = 0;
  for (const auto& c : cases()) {
    const auto lengths = c["lengths"].get<std::vector<std::int32_t>>();
    const auto scores = c["scores"].get<std::vector<float>>();
    const auto labels = c["labels"].get<std::vector<float>>();
    for (const auto& [name, expected] : c["losses"].items()) {
      SCOPED_TRACE(name + " over " + c["lengths"].dump());
      std::vector<float> grad(scores.size(), -7.0f);
      double loss = 0;
      double normalizer = 0;
      if (name == "listnet") {
        loss = listnet_loss_sum(scores, labels, lengths, grad.data());
        normalizer = static_cast<double>(lengths.size());
      } else {
        const LambdaLossOptions options{.weighting = parse_lambda_weighting(name, "scheme")};
        loss = lambda_loss_sum(scores, labels, lengths, options, grad.data());
        normalizer = static_cast<double>(lambda_pair_count(labels, lengths, options.weighting));
      }
      ASSERT_GT(normalizer, 0);
      const double want = expected["loss"].get<double>();
      EXPECT_NEAR(loss / normalizer, want, 1e-6 * std::max(1.0, std::abs(want)));
      const auto want_grad = expected["grad"].get<std::vector<double>>();
      ASSERT_EQ(want_grad.size(), grad.size());
      for (std::size_t i = 0; i < grad.size(); ++i) {
        EXPECT_NEAR(grad[i] / normalizer, want_grad[i], 1e-6) << "score " << i;
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 36);
}

// The gradient is the loss's: central differences in double agree with it away from the
// clamps (moderate scores, no ties).
TEST(ListwiseLoss, GradientsMatchFiniteDifferences) {
  const std::vector<std::int32_t> lengths = {3, 1, 4};
  std::vector<float> scores = {0.3f, -1.1f, 0.8f, 2.0f, -0.4f, 1.5f, 0.1f, -2.2f};
  const std::vector<float> labels = {2, 0, 1, 1, 0, 3, 1, 0};
  for (const LambdaWeighting w : {LambdaWeighting::kNdcgLoss2PP, LambdaWeighting::kLambdaRank, LambdaWeighting::kNone}) {
    std::vector<float> grad(scores.size());
    lambda_loss_sum(scores, labels, lengths, {.weighting = w}, grad.data());
    for (std::size_t i = 0; i < scores.size(); ++i) {
      const float h = 1e-2f;
      std::vector<float> up = scores, down = scores;
      up[i] += h;
      down[i] -= h;
      const double numeric = (lambda_loss_sum(up, labels, lengths, {.weighting = w}, nullptr) -
                              lambda_loss_sum(down, labels, lengths, {.weighting = w}, nullptr)) /
                             (2.0 * h);
      EXPECT_NEAR(grad[i], numeric, 2e-3 * std::max(1.0, std::abs(numeric))) << lambda_weighting_name(w) << " " << i;
    }
  }
}

// The cross-encoder MultipleNegativesRankingLoss: the cross-entropy of 10 x sigmoid(scores)
// against the first, by hand and by central differences.
TEST(ListwiseLoss, MultipleNegativesIsTheCrossEntropyOfScaledSigmoids) {
  const std::vector<std::int32_t> lengths = {3, 1, 4};
  const std::vector<float> scores = {0.3f, -1.1f, 0.8f, 2.0f, -0.4f, 1.5f, 0.1f, -2.2f};
  std::vector<float> grad(scores.size());
  const double sum = multiple_negatives_loss_sum(scores, lengths, 10.0, grad.data());
  double want = 0;
  std::size_t first = 0;
  for (const std::int32_t n : lengths) {
    double total = 0;
    for (std::int32_t j = 0; j < n; ++j) total += std::exp(10.0 / (1.0 + std::exp(-scores[first + j])));
    want += std::log(total) - 10.0 / (1.0 + std::exp(-scores[first]));
    first += static_cast<std::size_t>(n);
  }
  EXPECT_NEAR(sum, want, 1e-6);
  EXPECT_EQ(grad[3], 0.0f);  // a list of one: nothing to rank
  for (std::size_t i = 0; i < scores.size(); ++i) {
    std::vector<float> up = scores, down = scores;
    up[i] += 1e-2f;
    down[i] -= 1e-2f;
    const double numeric = (multiple_negatives_loss_sum(up, lengths, 10.0, nullptr) -
                            multiple_negatives_loss_sum(down, lengths, 10.0, nullptr)) / 2e-2;
    EXPECT_NEAR(grad[i], numeric, 2e-3 * std::max(1.0, std::abs(numeric))) << i;
  }
}

TEST(ListwiseLoss, PairCountsFollowTheScheme) {
  const std::vector<std::int32_t> lengths = {3, 2};
  const std::vector<float> labels = {1, 0, 0, 2, 2};
  EXPECT_EQ(lambda_pair_count(labels, lengths, LambdaWeighting::kNdcgLoss2PP), 2);  // (1>0) twice; the tie none
  EXPECT_EQ(lambda_pair_count(labels, lengths, LambdaWeighting::kNdcgLoss1), 9 + 4);  // every pair, the diagonal too
  EXPECT_THROW(parse_lambda_weighting("ndcg", "--lambda_weighting_scheme"), InputError);
}

}  // namespace
}  // namespace shmtrain::model::reranking
