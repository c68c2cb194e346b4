#include "shmtrain/tensor/gemm_bf16.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "shmtrain/tensor/cpu_features.hpp"
#include "shmtrain/tensor/threads.hpp"
#include "support/test_support.hpp"
#include "tensor/naive.hpp"

namespace shmtrain::tensor {
namespace {

using naive::Vec;

std::vector<bf16> to_bf16_vec(const Vec& v) {
  std::vector<bf16> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = to_bf16(static_cast<float>(v[i]));
  return out;
}

Vec rounded(const Vec& v) {
  Vec out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = to_float(to_bf16(static_cast<float>(v[i])));
  return out;
}

double relative_error(const std::vector<float>& actual, const Vec& expected) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    diff += (actual[i] - expected[i]) * (actual[i] - expected[i]);
    norm += expected[i] * expected[i];
  }
  return norm == 0 ? std::sqrt(diff) : std::sqrt(diff / norm);
}

#define SKIP_WITHOUT_BF16()                                                             \
  if (!cpu_features().bf16_native()) GTEST_SKIP() << "this CPU has neither AVX512-BF16 nor AMX"

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(to_bf16(1.0f).bits, 0x3f80);
  EXPECT_EQ(to_bf16(-2.0f).bits, 0xc000);
  // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1).
  EXPECT_EQ(to_bf16(1.0f + 0x1p-8f).bits, 0x3f80);
  // 1 + 3 * 2^-8 lies halfway between 1 + 2^-7 (odd) and 1 + 2^-6 (even).
  EXPECT_EQ(to_bf16(1.0f + 3 * 0x1p-8f).bits, 0x3f82);
  EXPECT_EQ(to_bf16(1.0f + 0x1p-8f + 0x1p-20f).bits, 0x3f81);
  EXPECT_EQ(to_bf16(std::numeric_limits<float>::infinity()).bits, 0x7f80);
  EXPECT_TRUE(std::isnan(to_float(to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(to_float(to_bf16(0.15625f)), 0.15625f);  // exactly representable
}

TEST(Bf16, BulkConversionMatchesScalarAndRoundTrips) {
  const auto values = naive::to_float(naive::random_vec(100003, 7, 1e3));
  std::vector<bf16> bulk(values.size());
  convert_to_bf16(bulk.data(), values.data(), static_cast<std::int64_t>(values.size()));
  std::vector<float> back(values.size());
  convert_to_float(back.data(), bulk.data(), static_cast<std::int64_t>(values.size()));
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(bulk[i].bits, to_bf16(values[i]).bits) << "at " << i << ": " << values[i];
    ASSERT_LE(std::abs(back[i] - values[i]), std::abs(values[i]) * 0x1p-8f) << "at " << i;
  }
}

struct Bf16Case {
  std::int64_t m, n, k;
};

class GemmBf16Shapes : public ::testing::TestWithParam<Bf16Case> {};

// Against the product of the bf16-rounded inputs, the only error left is float accumulation;
// against the unrounded inputs, bf16's 8-bit mantissa: relative 2^-9 per input, so about
// 2^-8 on the product, averaging down over the sum.
TEST_P(GemmBf16Shapes, MatchesNaiveLoopsForEveryTransposition) {
  SKIP_WITHOUT_BF16();
  const auto [m, n, k] = GetParam();
  for (Trans ta : {Trans::kNo, Trans::kYes})
    for (Trans tb : {Trans::kNo, Trans::kYes}) {
      const Vec a = naive::random_vec(static_cast<std::size_t>(m * k), 1);
      const Vec b = naive::random_vec(static_cast<std::size_t>(k * n), 2);
      const Vec c = naive::random_vec(static_cast<std::size_t>(m * n), 3);
      const auto a16 = to_bf16_vec(a), b16 = to_bf16_vec(b);
      std::vector<float> out = naive::to_float(c);
      gemm_bf16(ta, tb, m, n, k, 0.5f, a16.data(), ta == Trans::kNo ? k : m, b16.data(), tb == Trans::kNo ? n : k,
                2.0f, out.data(), n);
      const Vec exact = naive::gemm(ta, tb, m, n, k, 0.5, rounded(a), rounded(b), 2.0, c);
      EXPECT_TRUE(testing::all_close(out, naive::to_float(exact), 1e-5 * std::sqrt(static_cast<double>(k) + 1), 1e-6))
          << "m=" << m << " n=" << n << " k=" << k;
      EXPECT_LT(relative_error(out, naive::gemm(ta, tb, m, n, k, 0.5, a, b, 2.0, c)), 4e-3)
          << "m=" << m << " n=" << n << " k=" << k;
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, GemmBf16Shapes,
                         ::testing::Values(Bf16Case{1, 1, 1}, Bf16Case{1, 7, 3}, Bf16Case{5, 1, 9},
                                           Bf16Case{33, 17, 1}, Bf16Case{130, 67, 31}, Bf16Case{257, 65, 100},
                                           Bf16Case{64, 300, 48}, Bf16Case{3, 4, 0}, Bf16Case{40, 30, 600}));

// The BERT-base products, with the transpositions the model uses, cut to 128 tokens.
TEST(GemmBf16, BertBaseShapes) {
  SKIP_WITHOUT_BF16();
  struct Case {
    Trans ta, tb;
    std::int64_t m, n, k;
  };
  for (const Case& s : {Case{Trans::kNo, Trans::kYes, 128, 2304, 768},   // qkv = x W^T
                        Case{Trans::kNo, Trans::kYes, 128, 768, 3072},   // output dense
                        Case{Trans::kNo, Trans::kNo, 128, 3072, 768},    // dx = dy W
                        Case{Trans::kYes, Trans::kNo, 768, 768, 128},    // dW = dy^T x
                        Case{Trans::kNo, Trans::kYes, 128, 128, 64}}) {  // attention scores
    const Vec a = naive::random_vec(static_cast<std::size_t>(s.m * s.k), 11);
    const Vec b = naive::random_vec(static_cast<std::size_t>(s.k * s.n), 12);
    const Vec zero(static_cast<std::size_t>(s.m * s.n), 0.0);
    const auto a16 = to_bf16_vec(a), b16 = to_bf16_vec(b);
    std::vector<float> out(zero.size());
    gemm_bf16(s.ta, s.tb, s.m, s.n, s.k, 1.0f, a16.data(), s.ta == Trans::kNo ? s.k : s.m, b16.data(),
              s.tb == Trans::kNo ? s.n : s.k, 0.0f, out.data(), s.n);
    const Vec exact = naive::gemm(s.ta, s.tb, s.m, s.n, s.k, 1.0, rounded(a), rounded(b), 0.0, zero);
    EXPECT_TRUE(testing::all_close(out, naive::to_float(exact), 1e-5 * std::sqrt(static_cast<double>(s.k)), 1e-6))
        << s.m << "x" << s.n << "x" << s.k;
    EXPECT_LT(relative_error(out, naive::gemm(s.ta, s.tb, s.m, s.n, s.k, 1.0, a, b, 0.0, zero)), 4e-3);
  }
}

TEST(GemmBf16, BiasAndBf16Output) {
  SKIP_WITHOUT_BF16();
  const std::int64_t m = 300, n = 260, k = 96;  // blocked, split by rows
  const Vec a = naive::random_vec(static_cast<std::size_t>(m * k), 21);
  const Vec b = naive::random_vec(static_cast<std::size_t>(n * k), 22);
  const Vec bias = naive::random_vec(static_cast<std::size_t>(n), 23);
  const Vec zero(static_cast<std::size_t>(m * n), 0.0);
  const auto a16 = to_bf16_vec(a), b16 = to_bf16_vec(b);
  const auto bias_f = naive::to_float(bias);
  const Vec exact = naive::gemm(Trans::kNo, Trans::kYes, m, n, k, 1.0, rounded(a), rounded(b), 0.0, zero, &bias);

  std::vector<float> out(zero.size(), std::numeric_limits<float>::quiet_NaN());  // beta 0 ignores C
  gemm_bf16(Trans::kNo, Trans::kYes, m, n, k, 1.0f, a16.data(), k, b16.data(), k, 0.0f, out.data(), n, bias_f.data());
  EXPECT_TRUE(testing::all_close(out, naive::to_float(exact), 1e-4, 1e-6));

  std::vector<bf16> out16(zero.size());
  gemm_bf16(Trans::kNo, Trans::kYes, m, n, k, a16.data(), k, b16.data(), k, out16.data(), n, bias_f.data());
  for (std::size_t i = 0; i < out16.size(); ++i) {
    // One rounding of the float result: within half a bf16 step of it.
    ASSERT_LE(std::abs(to_float(out16[i]) - exact[i]), std::abs(exact[i]) * 0x1p-8 + 1e-4) << "at " << i;
  }

  // Split by columns: the bias follows its block.
  std::vector<float> wide(static_cast<std::size_t>(8 * 700));
  const Vec a2 = naive::random_vec(8 * 64, 24), b2 = naive::random_vec(700 * 64, 25), bias2 = naive::random_vec(700, 26);
  const auto a2_16 = to_bf16_vec(a2), b2_16 = to_bf16_vec(b2);
  const auto bias2_f = naive::to_float(bias2);
  gemm_bf16(Trans::kNo, Trans::kYes, 8, 700, 64, 1.0f, a2_16.data(), 64, b2_16.data(), 64, 0.0f, wide.data(), 700,
            bias2_f.data());
  const Vec exact2 = naive::gemm(Trans::kNo, Trans::kYes, 8, 700, 64, 1.0, rounded(a2), rounded(b2), 0.0,
                                Vec(wide.size(), 0.0), &bias2);
  EXPECT_TRUE(testing::all_close(wide, naive::to_float(exact2), 1e-4, 1e-6));
}

TEST(GemmBf16, SerialMatchesBlockedAndThreadCountsAgree) {
  SKIP_WITHOUT_BF16();
  const std::int64_t m = 512, n = 384, k = 96;
  const auto a = to_bf16_vec(naive::random_vec(static_cast<std::size_t>(m * k), 4));
  const auto b = to_bf16_vec(naive::random_vec(static_cast<std::size_t>(k * n), 5));
  std::vector<float> one(static_cast<std::size_t>(m * n)), two(one.size());
  set_compute_threads(1);
  gemm_bf16(Trans::kNo, Trans::kYes, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, one.data(), n);
  set_compute_threads(2);
  gemm_bf16(Trans::kNo, Trans::kYes, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, two.data(), n);
  EXPECT_EQ(one, two);

  std::vector<float> serial(one.size());
  gemm_bf16_serial(Trans::kNo, Trans::kYes, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f, serial.data(), n);
  EXPECT_TRUE(testing::all_close(serial, one, 1e-4, 1e-6));
  std::vector<bf16> serial16(one.size());
  gemm_bf16_serial(Trans::kNo, Trans::kYes, m, n, k, 1.0f, a.data(), k, b.data(), k, serial16.data(), n);
  for (std::size_t i = 0; i < one.size(); ++i) ASSERT_EQ(serial16[i].bits, to_bf16(serial[i]).bits) << "at " << i;
}

}  // namespace
}  // namespace shmtrain::tensor
