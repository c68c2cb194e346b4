// GELU and tanh, forward against the textbook formula, backward against finite differences.
#include <cmath>

#include <gtest/gtest.h>

#include "shmtrain/tensor/cpu_features.hpp"
#include "shmtrain/tensor/gelu.hpp"
#include "shmtrain/tensor/tanh.hpp"
#include "support/test_support.hpp"
#include "tensor/naive.hpp"

namespace shmtrain::tensor {
namespace {

using naive::Vec;

// Each path the CPU allows: 16 lanes (AVX-512), 8 lanes (AVX2) and scalar.
TEST(Gelu, ForwardAndBackwardOnRandomAndEdgeValues) {
  Vec x = naive::random_vec(10001, 31, 3.0);  // odd size; spans the GELU's curved region
  x[0] = 0.0;
  x[1] = -10.0;
  x[2] = 10.0;
  const Vec dy = naive::random_vec(x.size(), 32);
  const auto xf = naive::to_float(x), dyf = naive::to_float(dy);
  // The element-wise derivative: finite differences one element at a time.
  Vec expected(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double h = 1e-6;
    expected[i] = dy[i] * (naive::gelu({x[i] + h})[0] - naive::gelu({x[i] - h})[0]) / (2 * h);
  }
  const CpuFeatures saved = cpu_features();
  CpuFeatures scalar = masked_cpu_features(saved, "-avx512");
  scalar.avx2 = false;
  for (const CpuFeatures& features : {saved, masked_cpu_features(saved, "-avx512"), scalar}) {
    set_cpu_features(features);
    std::vector<float> y(xf.size()), dx(xf.size());
    gelu_forward(y.data(), xf.data(), static_cast<std::int64_t>(xf.size()));
    EXPECT_TRUE(testing::all_close(y, naive::to_float(naive::gelu(x)), 1e-6, 1e-6)) << features.summary();
    gelu_backward(dx.data(), dyf.data(), xf.data(), static_cast<std::int64_t>(xf.size()));
    EXPECT_TRUE(testing::all_close(dx, naive::to_float(expected), 1e-5, 1e-4)) << features.summary();
  }
  set_cpu_features(saved);
}

// --bf16: the same values, rounded once (the sizes cover whole vectors and a tail).
TEST(Gelu, Bf16OutputsAreTheFloatOutputsRounded) {
  for (std::size_t n : {std::size_t{16}, std::size_t{4096 + 7}}) {
    const auto x = naive::to_float(naive::random_vec(n, 33, 3.0));
    const auto dy = naive::to_float(naive::random_vec(n, 34));
    std::vector<float> y(n), dx(n);
    std::vector<bf16> y16(n), dx16(n);
    gelu_forward(y.data(), x.data(), static_cast<std::int64_t>(n));
    gelu_forward(y16.data(), x.data(), static_cast<std::int64_t>(n));
    gelu_backward(dx.data(), dy.data(), x.data(), static_cast<std::int64_t>(n));
    gelu_backward(dx16.data(), dy.data(), x.data(), static_cast<std::int64_t>(n));
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(y16[i].bits, to_bf16(y[i]).bits) << "forward at " << i;
      ASSERT_EQ(dx16[i].bits, to_bf16(dx[i]).bits) << "backward at " << i;
    }
  }
}

TEST(Tanh, ForwardAndBackward) {
  const Vec x = naive::random_vec(37, 33, 2.0);
  const Vec dy = naive::random_vec(37, 34);
  const auto xf = naive::to_float(x), dyf = naive::to_float(dy);
  std::vector<float> y(37), dx(37);
  tanh_forward(y.data(), xf.data(), 37);
  tanh_backward(dx.data(), dyf.data(), y.data(), 37);
  Vec ey(37), edx(37);
  for (std::size_t i = 0; i < 37; ++i) {
    ey[i] = std::tanh(x[i]);
    edx[i] = dy[i] * (std::tanh(x[i] + 1e-6) - std::tanh(x[i] - 1e-6)) / 2e-6;
  }
  EXPECT_TRUE(testing::all_close(y, naive::to_float(ey), 1e-6, 1e-6));
  EXPECT_TRUE(testing::all_close(dx, naive::to_float(edx), 1e-5, 1e-4));
}

}  // namespace
}  // namespace shmtrain::tensor
