#include "shmtrain/tensor/dropout.hpp"

#include <gtest/gtest.h>

#include "shmtrain/tensor/threads.hpp"

namespace shmtrain {
namespace {

TEST(Dropout, KeepsAboutOneMinusPAndScalesTheKept) {
  const std::int64_t n = 200001;
  std::vector<float> x(n, 1.0f), y(n);
  dropout_forward(y.data(), x.data(), n, 0.1f, dropout_key(42, 0, 0, 0));
  std::int64_t kept = 0;
  for (float v : y) {
    ASSERT_TRUE(v == 0.0f || v == 1.0f / 0.9f);
    kept += v != 0.0f;
  }
  // Binomial(n, 0.9): standard deviation ~134; 6 sigma.
  EXPECT_NEAR(static_cast<double>(kept), 0.9 * n, 800);
}

TEST(Dropout, MaskIsAFunctionOfKeyAndPositionOnly) {
  const std::int64_t n = 50000;
  std::vector<float> x(n, 2.0f), one(n), two(n), shifted(n - 100);
  set_compute_threads(1);
  dropout_forward(one.data(), x.data(), n, 0.5f, dropout_key(1, 2, 3, 4));
  set_compute_threads(2);
  dropout_forward(two.data(), x.data(), n, 0.5f, dropout_key(1, 2, 3, 4));
  EXPECT_EQ(one, two);
  dropout_forward(shifted.data(), x.data(), n - 100, 0.5f, dropout_key(1, 2, 3, 4), 100);
  EXPECT_TRUE(std::equal(shifted.begin(), shifted.end(), one.begin() + 100));
  // Another step, rank or site gives another mask.
  for (const DropoutKey other : {dropout_key(1, 2, 4, 4), dropout_key(1, 3, 3, 4), dropout_key(1, 2, 3, 5)}) {
    std::vector<float> z(n);
    dropout_forward(z.data(), x.data(), n, 0.5f, other);
    EXPECT_NE(z, one);
  }
}

TEST(Dropout, BackwardUsesTheForwardMask) {
  const std::int64_t n = 1001;
  std::vector<float> x(n), y(n), dy(n, 1.0f), dx(n);
  for (std::int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i + 1);
  const DropoutKey key = dropout_key(9, 0, 1, 2);
  dropout_forward(y.data(), x.data(), n, 0.25f, key);
  dropout_backward(dx.data(), dy.data(), n, 0.25f, key);
  for (std::int64_t i = 0; i < n; ++i) EXPECT_EQ(dx[i] == 0.0f, y[i] == 0.0f) << i;
}

TEST(Dropout, ZeroProbabilityIsTheIdentity) {
  std::vector<float> x = {1, -2, 3}, y(3);
  dropout_forward(y.data(), x.data(), 3, 0.0f, dropout_key(0, 0, 0, 0));
  EXPECT_EQ(x, y);
}

}  // namespace
}  // namespace shmtrain
