// The sentence-embedding losses against naive double-precision loops written from
// sentence-transformers' formulas, and their gradients against central finite differences.
#include "shmtrain/model/sentence/embedding_loss.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <fstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/model/sentence/normalize.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace embedding_loss_test {

using namespace model::sentence;
using Matrix = std::vector<double>;

std::vector<float> random_rows(std::int64_t rows, std::int64_t width, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(static_cast<std::size_t>(rows * width));
  for (float& v : x) v = normal(rng);
  return x;
}

std::vector<double> unit(const float* x, std::int64_t width) {
  double n = 0;
  for (std::int64_t k = 0; k < width; ++k) n += double(x[k]) * x[k];
  n = std::max(std::sqrt(n), 1e-12);
  std::vector<double> u(static_cast<std::size_t>(width));
  for (std::int64_t k = 0; k < width; ++k) u[static_cast<std::size_t>(k)] = x[k] / n;
  return u;
}

double naive_ranking(const std::vector<float>& e, std::int64_t width, const RankingLayout& l) {
  double loss = 0;
  for (std::int64_t i = 0; i < l.anchors; ++i) {
    const auto a = unit(&e[static_cast<std::size_t>(i * width)], width);
    std::vector<double> s;
    for (std::int64_t j = 0; j < l.candidates; ++j) {
      const auto c = unit(&e[static_cast<std::size_t>((l.anchors + j) * width)], width);
      double dot = 0;
      for (std::int64_t k = 0; k < width; ++k) dot += a[static_cast<std::size_t>(k)] * c[static_cast<std::size_t>(k)];
      s.push_back(l.scale * dot);
    }
    double sum = 0;
    for (double v : s) sum += std::exp(v);
    loss += std::log(sum) - s[static_cast<std::size_t>(l.labels[static_cast<std::size_t>(i)])];
  }
  return loss / l.normalizer;
}

// pairwise_angle_sim as util/similarity.py writes it: complex division, then the sum of re + im.
double naive_angle(const float* x, const float* y, std::int64_t width) {
  const std::int64_t h = width / 2;
  double z = 0, xx = 0;
  for (std::int64_t k = 0; k < h; ++k) {
    z += double(y[k]) * y[k] + double(y[h + k]) * y[h + k];
    xx += double(x[k]) * x[k] + double(x[h + k]) * x[h + k];
  }
  const double dz = std::sqrt(xx), dw = std::sqrt(z);
  double sum = 0;
  for (std::int64_t k = 0; k < h; ++k) {
    const double a = x[k], b = x[h + k], c = y[k], d = y[h + k];
    const double re = (a * c + b * d) / z / (dz / dw);
    const double im = (b * c - a * d) / z / (dz / dw);
    sum += re + im;
  }
  return std::abs(sum);
}

double naive_scored(const std::vector<float>& e, std::int64_t width, const ScoredPairLayout& l) {
  std::vector<double> s;
  for (std::int64_t i = 0; i < l.pairs; ++i) {
    const float* x = &e[static_cast<std::size_t>(i * width)];
    const float* y = &e[static_cast<std::size_t>((l.pairs + i) * width)];
    double sim = 0;
    if (l.similarity == PairSimilarity::kCosine) {
      const auto ux = unit(x, width), uy = unit(y, width);
      for (std::int64_t k = 0; k < width; ++k) sim += ux[static_cast<std::size_t>(k)] * uy[static_cast<std::size_t>(k)];
    } else {
      sim = naive_angle(x, y, width);
    }
    s.push_back(l.scale * sim);
  }
  double sum = 1;  // exp(0), the appended zero
  for (std::int64_t i = 0; i < l.pairs; ++i) {
    for (std::int64_t j = 0; j < l.pairs; ++j) {
      if (l.labels[static_cast<std::size_t>(i)] < l.labels[static_cast<std::size_t>(j)]) {
        sum += std::exp(s[static_cast<std::size_t>(i)] - s[static_cast<std::size_t>(j)]);
      }
    }
  }
  return std::log(sum);
}

// The analytic gradient against central differences of the loss itself (float: step 1e-2 on
// unit-scale inputs keeps the rounding of a loss of size ~1 under 2e-3; the difference's own
// error grows with the curvature, so large gradients get 1e-3 of their size besides).
void expect_gradient_matches(const EmbeddingLoss& loss, std::vector<float> e, std::int64_t width, float dloss) {
  std::vector<float> grad(e.size(), 0.0f);
  loss.forward_backward(e.data(), width, width, grad.data(), dloss);
  const float step = 1e-2f;
  for (std::size_t i = 0; i < e.size(); ++i) {
    const float saved = e[i];
    e[i] = saved + step;
    const double up = loss.forward_backward(e.data(), width, width, nullptr, 0);
    e[i] = saved - step;
    const double down = loss.forward_backward(e.data(), width, width, nullptr, 0);
    e[i] = saved;
    EXPECT_NEAR(grad[i], dloss * (up - down) / (2 * step), 2e-3 + 1e-3 * std::abs(grad[i])) << "element " << i;
  }
}

TEST(RankingLoss, EqualsTheNaiveLossWithHardNegativesAndOffsetLabels) {
  const std::int64_t width = 6;
  RankingLayout layout{.anchors = 3, .candidates = 9, .labels = {2, 3, 4}, .normalizer = 5.0, .scale = 20.0f};
  const auto e = random_rows(12, width, 1);
  const auto loss = make_ranking_loss(layout);
  EXPECT_NEAR(loss->forward_backward(e.data(), width, width, nullptr, 0), naive_ranking(e, width, layout), 1e-4);
  expect_gradient_matches(*loss, e, width, 0.7f);
}

TEST(RankingLoss, ScaleOneWithoutNegatives) {
  const std::int64_t width = 4;
  RankingLayout layout{.anchors = 4, .candidates = 4, .labels = {0, 1, 2, 3}, .normalizer = 4.0, .scale = 1.0f};
  const auto e = random_rows(8, width, 2);
  const auto loss = make_ranking_loss(layout);
  EXPECT_NEAR(loss->forward_backward(e.data(), width, width, nullptr, 0), naive_ranking(e, width, layout), 1e-5);
  expect_gradient_matches(*loss, e, width, 1.0f);
}

TEST(ScoredPairLoss, CoSentEqualsTheNaiveLossWithTiedScores) {
  const std::int64_t width = 5;
  ScoredPairLayout layout{.pairs = 5, .labels = {0.2f, 1.0f, 0.2f, 0.6f, 0.0f}, .scale = 20.0f};
  const auto e = random_rows(10, width, 3);
  const auto loss = make_scored_pair_loss(layout);
  EXPECT_NEAR(loss->forward_backward(e.data(), width, width, nullptr, 0), naive_scored(e, width, layout), 1e-4);
  expect_gradient_matches(*loss, e, width, 1.0f);
}

TEST(ScoredPairLoss, AnglEEqualsTheComplexDivisionOfTheSource) {
  const std::int64_t width = 6;
  ScoredPairLayout layout{
      .pairs = 4, .labels = {3.0f, 1.0f, 4.0f, 1.5f}, .scale = 20.0f, .similarity = PairSimilarity::kAngle};
  const auto e = random_rows(8, width, 4);
  const auto loss = make_scored_pair_loss(layout);
  EXPECT_NEAR(loss->forward_backward(e.data(), width, width, nullptr, 0), naive_scored(e, width, layout), 1e-4);
  expect_gradient_matches(*loss, e, width, 1.0f);
}

TEST(ScoredPairLoss, AllEqualLabelsGiveZeroLossAndGradient) {
  const std::int64_t width = 4;
  ScoredPairLayout layout{.pairs = 3, .labels = {1.0f, 1.0f, 1.0f}};
  const auto e = random_rows(6, width, 5);
  std::vector<float> grad(e.size(), 0.0f);
  EXPECT_EQ(make_scored_pair_loss(layout)->forward_backward(e.data(), width, width, grad.data(), 1.0f), 0.0);
  for (float g : grad) EXPECT_EQ(g, 0.0f);
}

TEST(ScoredPairLoss, AnglERefusesAnOddWidth) {
  ScoredPairLayout layout{.pairs = 1, .labels = {1.0f}, .similarity = PairSimilarity::kAngle};
  const auto e = random_rows(2, 5, 6);
  EXPECT_THROW(make_scored_pair_loss(layout)->forward_backward(e.data(), 5, 5, nullptr, 0), InputError);
}

TEST(MatryoshkaLoss, IsTheWeightedSumOverTruncatedNormalisedEmbeddings) {
  const std::int64_t width = 8;
  RankingLayout layout{.anchors = 2, .candidates = 4, .labels = {0, 1}, .normalizer = 2.0, .scale = 20.0f};
  const auto e = random_rows(6, width, 7);
  const std::vector<std::int64_t> dims = {4, 8, 2};
  const std::vector<double> weights = {0.5, 1.0, 2.0};
  const auto loss = make_matryoshka_loss(make_ranking_loss(layout), dims, weights);
  double expected = 0;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    std::vector<float> truncated;
    for (std::int64_t r = 0; r < 6; ++r) {
      for (std::int64_t c = 0; c < dims[k]; ++c) truncated.push_back(e[static_cast<std::size_t>(r * width + c)]);
    }
    expected += weights[k] * naive_ranking(truncated, dims[k], layout);
  }
  EXPECT_NEAR(loss->forward_backward(e.data(), width, width, nullptr, 0), expected, 1e-4);
  expect_gradient_matches(*loss, e, width, 1.0f);
}

TEST(MatryoshkaLoss, DimsWiderThanTheEmbeddingAreRefusedNamingTheFlag) {
  try {
    check_matryoshka_dims({768, 64}, {}, 384);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--matryoshka_dims: 768 is larger than the model's embedding dimension 384");
  }
  EXPECT_THROW(check_matryoshka_dims({64, 32}, {1.0}, 384), InputError);
  EXPECT_THROW(check_matryoshka_dims({}, {}, 384), InputError);
  EXPECT_NO_THROW(check_matryoshka_dims({384, 64}, {1.0, 0.5}, 384));
}

TEST(Normalize, BackwardMatchesFiniteDifferences) {
  const std::int64_t width = 5;
  auto x = random_rows(3, width, 8);
  const auto dy = random_rows(3, width, 9);
  std::vector<float> dx(x.size(), 0.0f);
  normalize_rows_backward_add(dx.data(), width, x.data(), width, dy.data(), width, 3, width);
  auto objective = [&] {
    std::vector<float> y(x.size());
    normalize_rows_forward(y.data(), width, x.data(), width, 3, width);
    double sum = 0;
    for (std::size_t i = 0; i < y.size(); ++i) sum += double(y[i]) * dy[i];
    return sum;
  };
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float saved = x[i];
    x[i] = saved + 1e-2f;
    const double up = objective();
    x[i] = saved - 1e-2f;
    const double down = objective();
    x[i] = saved;
    EXPECT_NEAR(dx[i], (up - down) / 2e-2, 2e-3) << i;
  }
}

// Against tools/make_sentence_loss_references.py: the losses ported from sentence-transformers'
// source in torch, gradients by autograd. 1e-4 on the loss and 1e-5 on gradients: float32 on
// both sides, summed in different orders.
TEST(EmbeddingLosses, EqualTheirPyTorchPortsWithGradients) {
  std::ifstream in(fixtures_dir() / "sentence_embedding" / "losses.json");
  ASSERT_TRUE(in) << "run tools/make_sentence_loss_references.py";
  const nlohmann::json fixture = nlohmann::json::parse(in);
  ASSERT_EQ(fixture["cases"].size(), 5u);
  for (const auto& c : fixture["cases"]) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    std::unique_ptr<EmbeddingLoss> loss;
    if (c.contains("anchors")) {
      RankingLayout layout{.anchors = c["anchors"], .candidates = c["candidates"],
                           .labels = c["labels"].get<std::vector<std::int64_t>>(), .normalizer = c["normalizer"]};
      loss = make_ranking_loss(layout);
      if (c.contains("dims")) {
        loss = make_matryoshka_loss(std::move(loss), c["dims"].get<std::vector<std::int64_t>>(),
                                    c["weights"].get<std::vector<double>>());
      }
    } else {
      loss = make_scored_pair_loss({.pairs = c["pairs"], .labels = c["scores"].get<std::vector<float>>(),
                                    .similarity = name == "angle" ? PairSimilarity::kAngle : PairSimilarity::kCosine});
    }
    const auto e = c["embeddings"].get<std::vector<float>>();
    const std::int64_t width = c["width"];
    std::vector<float> grad(e.size(), 0.0f);
    EXPECT_NEAR(loss->forward_backward(e.data(), width, width, grad.data(), 1.0f), c["loss"].get<double>(), 1e-4);
    EXPECT_TRUE(all_close(grad, c["grad"].get<std::vector<float>>(), 1e-5, 1e-4));
  }
}

}  // namespace embedding_loss_test
}  // namespace shmtrain::testing
