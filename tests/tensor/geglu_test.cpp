// The gated GELU (geglu.hpp) against the formula in double and its backward against finite
// differences; bf16 outputs are the float results rounded once.
#include "shmtrain/tensor/geglu.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "shmtrain/tensor/threads.hpp"
#include "tensor/naive.hpp"

namespace shmtrain::tensor {
namespace {

using naive::Vec;

constexpr std::int64_t kRows = 37;
constexpr std::int64_t kWidth = 11;

Vec naive_geglu(const Vec& x) {
  Vec out(static_cast<std::size_t>(kRows * kWidth));
  for (std::int64_t r = 0; r < kRows; ++r) {
    for (std::int64_t c = 0; c < kWidth; ++c) {
      const double v = x[static_cast<std::size_t>(r * 2 * kWidth + c)];
      const double gate = x[static_cast<std::size_t>(r * 2 * kWidth + kWidth + c)];
      out[static_cast<std::size_t>(r * kWidth + c)] = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))) * gate;
    }
  }
  return out;
}

TEST(Geglu, ForwardMatchesTheFormula) {
  set_compute_threads(2);
  const Vec x = naive::random_vec(kRows * 2 * kWidth, 1, 2.0);
  const std::vector<float> x32 = naive::to_float(x);
  std::vector<float> out(static_cast<std::size_t>(kRows * kWidth));
  geglu_forward(out.data(), x32.data(), kRows, kWidth);
  const Vec expected = naive_geglu(x);
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], expected[i], 1e-5 * (1 + std::abs(expected[i])));
  std::vector<bf16> out16(out.size());
  geglu_forward(out16.data(), x32.data(), kRows, kWidth);
  for (std::size_t i = 0; i < out.size(); ++i) EXPECT_EQ(out16[i].bits, to_bf16(out[i]).bits) << i;
}

TEST(Geglu, BackwardMatchesFiniteDifferences) {
  const Vec x = naive::random_vec(kRows * 2 * kWidth, 2, 2.0);
  const Vec dout = naive::random_vec(kRows * kWidth, 3);
  const Vec numeric = naive::numeric_grad(x, [&](const Vec& v) { return naive::dot(naive_geglu(v), dout); });
  const std::vector<float> x32 = naive::to_float(x), dout32 = naive::to_float(dout);
  std::vector<float> dx(x.size());
  geglu_backward(dx.data(), dout32.data(), x32.data(), kRows, kWidth);
  for (std::size_t i = 0; i < dx.size(); ++i) EXPECT_NEAR(dx[i], numeric[i], 1e-4 * (1 + std::abs(numeric[i]))) << i;
  std::vector<bf16> dx16(dx.size());
  geglu_backward(dx16.data(), dout32.data(), x32.data(), kRows, kWidth);
  for (std::size_t i = 0; i < dx.size(); ++i) EXPECT_EQ(dx16[i].bits, to_bf16(dx[i]).bits) << i;
}

}  // namespace
}  // namespace shmtrain::tensor
