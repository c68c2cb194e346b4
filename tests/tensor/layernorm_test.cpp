#include "shmtrain/tensor/layernorm.hpp"

#include <gtest/gtest.h>

#include "support/test_support.hpp"
#include "tensor/naive.hpp"

namespace shmtrain::tensor {
namespace {

using naive::Vec;

class LayerNormShapes : public ::testing::TestWithParam<std::pair<std::int64_t, std::int64_t>> {};

TEST_P(LayerNormShapes, ForwardMatchesNaiveAndBackwardMatchesFiniteDifferences) {
  const auto [n, c] = GetParam();
  const double eps = 1e-5;  // larger than BERT's 1e-12 so finite differences stay well conditioned
  const Vec x = naive::random_vec(static_cast<std::size_t>(n * c), 21, 2.0);
  const Vec w = naive::random_vec(static_cast<std::size_t>(c), 22);
  const Vec b = naive::random_vec(static_cast<std::size_t>(c), 23);
  const Vec dy = naive::random_vec(static_cast<std::size_t>(n * c), 24);
  const auto xf = naive::to_float(x), wf = naive::to_float(w), bf = naive::to_float(b), dyf = naive::to_float(dy);

  std::vector<float> y(xf.size()), mean(static_cast<std::size_t>(n)), rstd(static_cast<std::size_t>(n));
  layernorm_forward(y.data(), mean.data(), rstd.data(), xf.data(), wf.data(), bf.data(), n, c, static_cast<float>(eps));
  EXPECT_TRUE(testing::all_close(y, naive::to_float(naive::layernorm(x, w, b, n, c, eps)), 1e-5, 1e-5));

  std::vector<float> dx(xf.size()), dw(wf.size(), 0.0f), db(bf.size(), 0.0f);
  layernorm_backward(dx.data(), dw.data(), db.data(), dyf.data(), xf.data(), wf.data(), mean.data(), rstd.data(), n, c);
  auto loss_x = [&](const Vec& v) { return naive::dot(dy, naive::layernorm(v, w, b, n, c, eps)); };
  auto loss_w = [&](const Vec& v) { return naive::dot(dy, naive::layernorm(x, v, b, n, c, eps)); };
  auto loss_b = [&](const Vec& v) { return naive::dot(dy, naive::layernorm(x, w, v, n, c, eps)); };
  EXPECT_TRUE(testing::all_close(dx, naive::to_float(naive::numeric_grad(x, loss_x)), 1e-4, 1e-3));
  EXPECT_TRUE(testing::all_close(dw, naive::to_float(naive::numeric_grad(w, loss_w)), 1e-4, 1e-3));
  EXPECT_TRUE(testing::all_close(db, naive::to_float(naive::numeric_grad(b, loss_b)), 1e-4, 1e-3));
}

INSTANTIATE_TEST_SUITE_P(Shapes, LayerNormShapes,
                         ::testing::Values(std::pair<std::int64_t, std::int64_t>{1, 2}, std::pair<std::int64_t, std::int64_t>{1, 7},
                                           std::pair<std::int64_t, std::int64_t>{5, 3}, std::pair<std::int64_t, std::int64_t>{130, 13}));

TEST(LayerNorm, ConstantRowNormalisesToTheBias) {
  // A row of equal values has zero variance: out = bias exactly (eps keeps rstd finite).
  const std::vector<float> x(4, 3.0f), w = {1, 2, 3, 4}, b = {5, 6, 7, 8};
  std::vector<float> y(4), mean(1), rstd(1);
  layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), w.data(), b.data(), 1, 4, 1e-12f);
  EXPECT_EQ(y, b);
}

}  // namespace
}  // namespace shmtrain::tensor
