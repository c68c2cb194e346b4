#include "shmtrain/tensor/dropout.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "shmtrain/tensor/threads.hpp"

namespace shmtrain::tensor {
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

TEST(Dropout, RecordedMaskIsTheKeepFunctionAtAnyLengthAndOffset) {
  // The 16-wide generator (offsets on a 16-element step) and the scalar one (other offsets)
  // must both draw exactly dropout_keep; lengths cover partial last words.
  const DropoutKey key = dropout_key(5, 1, 2, 3);
  for (const std::int64_t n : {1, 15, 16, 17, 100, 8193}) {
    for (const std::uint64_t offset : {0ull, 16ull, 48ull, 1ull, 7ull, 33ull}) {
      std::vector<std::uint16_t> mask(static_cast<std::size_t>(dropout_mask_words(n)), 0xffff);
      dropout_mask_serial(mask.data(), n, 0.3f, key, offset);
      for (std::int64_t i = 0; i < n; ++i) {
        const bool bit = ((mask[static_cast<std::size_t>(i / 16)] >> (i % 16)) & 1u) != 0;
        ASSERT_EQ(bit, dropout_keep(key, offset + static_cast<std::uint64_t>(i), 0.3f)) << n << " " << offset << " " << i;
      }
      if (n % 16 != 0) {
        EXPECT_EQ(mask.back() >> (n % 16), 0) << "bits past n are clear";
      }
    }
  }
}

TEST(Dropout, NeighbouringElementsAreIndependent) {
  // Elements 2j and 2j + 1 share one generator output (different bits of it): the pairs must
  // show no correlation. P(both kept) = 0.5 * 0.5 at p = 0.5; 6 sigma over 100000 pairs.
  const DropoutKey key = dropout_key(11, 0, 0, 0);
  const std::int64_t pairs = 100000;
  std::int64_t both = 0;
  for (std::int64_t j = 0; j < pairs; ++j) {
    both += dropout_keep(key, 2 * j, 0.5f) && dropout_keep(key, 2 * j + 1, 0.5f);
  }
  EXPECT_NEAR(static_cast<double>(both), 0.25 * pairs, 6 * std::sqrt(pairs * 0.25 * 0.75));
}

TEST(Dropout, ForwardRecordsTheMaskTheBackwardReads) {
  const std::int64_t n = 20000;  // several parallel blocks, a partial last word
  std::vector<float> x(n), y(n), dy(n), dx(n);
  for (std::int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 7 + 1);
    dy[i] = static_cast<float>(i % 5 + 1);
  }
  const DropoutKey key = dropout_key(9, 0, 1, 2);
  std::vector<std::uint16_t> mask(static_cast<std::size_t>(dropout_mask_words(n)));
  set_compute_threads(2);
  dropout_forward(y.data(), x.data(), n, 0.25f, key, 0, mask.data());
  dropout_backward(dx.data(), dy.data(), n, 0.25f, mask.data());
  std::vector<bf16> dx16(n);
  dropout_backward(dx16.data(), dy.data(), n, 0.25f, mask.data());
  for (std::int64_t i = 0; i < n; ++i) {
    const bool kept = dropout_keep(key, static_cast<std::uint64_t>(i), 0.25f);
    ASSERT_EQ(y[i], kept ? x[i] * (1.0f / 0.75f) : 0.0f) << i;
    ASSERT_EQ(dx[i], kept ? dy[i] * (1.0f / 0.75f) : 0.0f) << i;
    ASSERT_EQ(dx16[i].bits, to_bf16(dx[i]).bits) << "the bf16 form rounds the float result once, at " << i;
  }
  // In place, as the encoder uses it, and the key-only backward draws the same mask again.
  std::vector<float> again = dy;
  dropout_backward(again.data(), again.data(), n, 0.25f, key);
  EXPECT_EQ(again, dx);
}

TEST(Dropout, ZeroProbabilityIsTheIdentity) {
  std::vector<float> x = {1, -2, 3}, y(3);
  dropout_forward(y.data(), x.data(), 3, 0.0f, dropout_key(0, 0, 0, 0));
  EXPECT_EQ(x, y);
}

}  // namespace
}  // namespace shmtrain::tensor
