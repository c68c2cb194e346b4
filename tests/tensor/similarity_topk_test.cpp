// tensor::similarity_topk against a naive loop: every query's k highest dot products in order,
// equal scores in corpus order, k beyond the corpus clamped, blocks of every size.
#include "shmtrain/tensor/similarity_topk.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace shmtrain::tensor {
namespace {

TEST(SimilarityTopK, EqualsANaiveSortWithTiesInCorpusOrder) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  for (const auto& [nq, nc, dim, k] : std::vector<std::array<std::int64_t, 4>>{
           {3, 10, 8, 4}, {70, kCorpusBlock + 37, 16, 9}, {130, 300, 5, 300 + 5}, {1, 1, 3, 2}}) {
    SCOPED_TRACE(::testing::Message() << nq << "x" << nc << "x" << dim << " k " << k);
    std::vector<float> q(static_cast<std::size_t>(nq * dim)), c(static_cast<std::size_t>(nc * dim));
    for (float& x : q) x = std::round(normal(rng) * 4) / 4;  // coarse values: exact sums, many ties
    for (float& x : c) x = std::round(normal(rng) * 4) / 4;
    for (std::int64_t r = 1; r < nc; r += 7) std::copy_n(c.begin() + (r - 1) * dim, dim, c.begin() + r * dim);
    const TopK top = similarity_topk(q.data(), nq, c.data(), nc, dim, k);
    const std::int64_t kk = std::min(k, nc);
    ASSERT_EQ(top.k, kk);
    for (std::int64_t i = 0; i < nq; ++i) {
      std::vector<double> s(static_cast<std::size_t>(nc));
      for (std::int64_t j = 0; j < nc; ++j) {
        double dot = 0;
        for (std::int64_t d = 0; d < dim; ++d) dot += static_cast<double>(q[i * dim + d]) * c[j * dim + d];
        s[static_cast<std::size_t>(j)] = dot;
      }
      std::vector<std::int64_t> order(static_cast<std::size_t>(nc));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return s[a] > s[b]; });
      for (std::int64_t j = 0; j < kk; ++j) {
        EXPECT_EQ(top.indices[static_cast<std::size_t>(i * kk + j)], order[static_cast<std::size_t>(j)])
            << "query " << i << " place " << j;
        EXPECT_FLOAT_EQ(top.scores[static_cast<std::size_t>(i * kk + j)], s[order[static_cast<std::size_t>(j)]]);
      }
    }
  }
}

TEST(SimilarityTopK, EmptyInputs) {
  const std::vector<float> x(8, 1.0f);
  EXPECT_EQ(similarity_topk(x.data(), 0, x.data(), 2, 4, 3).scores.size(), 0u);
  EXPECT_EQ(similarity_topk(x.data(), 2, x.data(), 0, 4, 3).k, 0);
}

}  // namespace
}  // namespace shmtrain::tensor
