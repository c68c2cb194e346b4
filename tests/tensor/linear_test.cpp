#include "shmtrain/tensor/linear.hpp"
#include "shmtrain/tensor/linear_rate.hpp"

#include <gtest/gtest.h>

#include "support/test_support.hpp"
#include "tensor/naive.hpp"

namespace shmtrain::tensor {
namespace {

using naive::Vec;

struct LinearCase {
  std::int64_t n, ic, oc;
};
class LinearShapes : public ::testing::TestWithParam<LinearCase> {};

TEST_P(LinearShapes, ForwardMatchesNaiveAndBackwardMatchesFiniteDifferences) {
  const auto [n, ic, oc] = GetParam();
  const Vec x = naive::random_vec(static_cast<std::size_t>(n * ic), 11);
  const Vec w = naive::random_vec(static_cast<std::size_t>(oc * ic), 12, 0.5);
  const Vec b = naive::random_vec(static_cast<std::size_t>(oc), 13);
  const Vec dy = naive::random_vec(static_cast<std::size_t>(n * oc), 14);
  const auto xf = naive::to_float(x), wf = naive::to_float(w), bf = naive::to_float(b), dyf = naive::to_float(dy);

  std::vector<float> y(static_cast<std::size_t>(n * oc));
  linear_forward(y.data(), xf.data(), wf.data(), bf.data(), n, ic, oc);
  EXPECT_TRUE(testing::all_close(y, naive::to_float(naive::linear(x, w, b, n, ic, oc)), 1e-4, 1e-5));

  std::vector<float> dx(xf.size()), dw(wf.size(), 0.0f), db(bf.size(), 0.0f);
  linear_backward(dx.data(), dw.data(), db.data(), dyf.data(), xf.data(), wf.data(), n, ic, oc);
  auto loss_x = [&](const Vec& v) { return naive::dot(dy, naive::linear(v, w, b, n, ic, oc)); };
  auto loss_w = [&](const Vec& v) { return naive::dot(dy, naive::linear(x, v, b, n, ic, oc)); };
  auto loss_b = [&](const Vec& v) { return naive::dot(dy, naive::linear(x, w, v, n, ic, oc)); };
  // Finite differences of a bilinear function in double are exact up to ~1e-9; the
  // tolerance covers float accumulation in the kernel.
  EXPECT_TRUE(testing::all_close(dx, naive::to_float(naive::numeric_grad(x, loss_x)), 1e-4, 1e-4));
  EXPECT_TRUE(testing::all_close(dw, naive::to_float(naive::numeric_grad(w, loss_w)), 1e-4, 1e-4));
  EXPECT_TRUE(testing::all_close(db, naive::to_float(naive::numeric_grad(b, loss_b)), 1e-4, 1e-4));
}

INSTANTIATE_TEST_SUITE_P(Shapes, LinearShapes,
                         ::testing::Values(LinearCase{1, 1, 1}, LinearCase{1, 5, 3}, LinearCase{7, 3, 5},
                                           LinearCase{70, 9, 66}, LinearCase{130, 17, 2}));

TEST(Linear, BackwardAccumulatesIntoWeightAndBiasGradients) {
  const std::int64_t n = 3, ic = 2, oc = 2;
  const std::vector<float> x = {1, 2, 3, 4, 5, 6}, w = {1, 0, 0, 1}, dy = {1, 1, 1, 1, 1, 1};
  std::vector<float> dw = {10, 10, 10, 10}, db = {100, 100};
  linear_backward(nullptr, dw.data(), db.data(), dy.data(), x.data(), w.data(), n, ic, oc);
  // dW = dY^T X = [[9, 12], [9, 12]] added to 10; db = 3 added to 100: integers, exact.
  EXPECT_EQ(dw, (std::vector<float>{19, 22, 19, 22}));
  EXPECT_EQ(db, (std::vector<float>{103, 103}));
}

}  // namespace
}  // namespace shmtrain::tensor

namespace linear_rate_test {
namespace {

using shmtrain::tensor::LinearShape;

TEST(LinearRate, CountsThreeProductsPerShapeAndBoundsThePasses) {
  const std::vector<LinearShape> shapes = {{64, 32, 96}, {64, 96, 32}};
  EXPECT_DOUBLE_EQ(shapes[0].train_flops(), 3.0 * 2.0 * 64 * 32 * 96);
  const double per_pass = 2 * shapes[0].train_flops();
  EXPECT_EQ(shmtrain::tensor::passes_for(shapes, 10 * per_pass), 10);
  EXPECT_EQ(shmtrain::tensor::passes_for(shapes, 0.1 * per_pass), 3);
  EXPECT_EQ(shmtrain::tensor::passes_for(shapes, 1e6 * per_pass), 100);
  EXPECT_GT(shmtrain::tensor::linear_rate_gflops(shapes, false, 3), 0.0);
}

}  // namespace
}  // namespace linear_rate_test
