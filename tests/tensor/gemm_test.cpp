#include "shmtrain/tensor/gemm.hpp"

#include <gtest/gtest.h>

#include "shmtrain/tensor/threads.hpp"
#include "support/test_support.hpp"
#include "tensor/naive.hpp"

namespace shmtrain::tensor {
namespace {

using naive::Vec;

struct GemmCase {
  std::int64_t m, n, k;
};

class GemmShapes : public ::testing::TestWithParam<GemmCase> {};

TEST_P(GemmShapes, MatchesNaiveLoopsForEveryTransposition) {
  const auto [m, n, k] = GetParam();
  for (Trans ta : {Trans::kNo, Trans::kYes})
    for (Trans tb : {Trans::kNo, Trans::kYes}) {
      const Vec a = naive::random_vec(static_cast<std::size_t>(m * k), 1);
      const Vec b = naive::random_vec(static_cast<std::size_t>(k * n), 2);
      const Vec c = naive::random_vec(static_cast<std::size_t>(m * n), 3);
      std::vector<float> out = naive::to_float(c);
      const auto af = naive::to_float(a), bf = naive::to_float(b);
      gemm(ta, tb, m, n, k, 0.5f, af.data(), ta == Trans::kNo ? k : m, bf.data(), tb == Trans::kNo ? n : k, 2.0f,
           out.data(), n);
      const auto expected = naive::to_float(naive::gemm(ta, tb, m, n, k, 0.5, a, b, 2.0, c));
      // float accumulation over k terms of unit variance: error grows like sqrt(k) * eps.
      EXPECT_TRUE(testing::all_close(out, expected, 1e-4 * std::sqrt(static_cast<double>(k) + 1), 1e-5))
          << "m=" << m << " n=" << n << " k=" << k;
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmShapes,
                         ::testing::Values(GemmCase{1, 1, 1}, GemmCase{1, 7, 3}, GemmCase{5, 1, 9},
                                           GemmCase{33, 17, 1}, GemmCase{130, 67, 31}, GemmCase{257, 64, 100},
                                           GemmCase{64, 300, 48}, GemmCase{3, 4, 0},
                                           // inner dimension past 512: the OpenBLAS path (gemm.cpp)
                                           GemmCase{40, 30, 600}));

TEST(Gemm, SameBitsForOneAndTwoThreads) {
  const std::int64_t m = 512, n = 384, k = 96;
  const auto a = naive::to_float(naive::random_vec(static_cast<std::size_t>(m * k), 4));
  const auto b = naive::to_float(naive::random_vec(static_cast<std::size_t>(k * n), 5));
  std::vector<float> one(static_cast<std::size_t>(m * n)), two(one.size());
  set_compute_threads(1);
  gemm(Trans::kNo, Trans::kYes, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, one.data(), n);
  set_compute_threads(2);
  gemm(Trans::kNo, Trans::kYes, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, two.data(), n);
  EXPECT_EQ(one, two);
}

}  // namespace
}  // namespace shmtrain::tensor
