// Rotary embeddings (rotary.hpp) against the formula in double, the backward as the forward's
// transpose (a rotation: its inverse), V untouched, positions per token, and bf16.
#include "shmtrain/tensor/rotary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/threads.hpp"
#include "tensor/naive.hpp"

namespace shmtrain::tensor {
namespace {

using naive::Vec;

constexpr std::int64_t kRotaryHeads = 3;
constexpr std::int64_t kRotaryDim = 8;
constexpr std::int64_t kRotaryHidden = kRotaryHeads * kRotaryDim;

// Positions of a pack: 0..4 then 0..6 then 0..2, as two sequences would have them.
std::vector<std::int32_t> pack_positions() { return {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5, 6, 0, 1, 2}; }

// transformers' rotation in double, the angle rounded to float as transformers computes it.
Vec naive_rotary(const Vec& qkv, const std::vector<std::int32_t>& pos, double theta) {
  Vec out = qkv;
  for (std::size_t t = 0; t < pos.size(); ++t) {
    for (std::int64_t head = 0; head < 2 * kRotaryHeads; ++head) {
      for (std::int64_t c = 0; c < kRotaryDim / 2; ++c) {
        const float inv = 1.0f / std::pow(static_cast<float>(theta), static_cast<float>(2 * c) / kRotaryDim);
        const double angle = static_cast<float>(pos[t]) * inv;
        const std::size_t a = t * 3 * kRotaryHidden + static_cast<std::size_t>(head * kRotaryDim + c);
        const std::size_t b = a + kRotaryDim / 2;
        out[a] = qkv[a] * std::cos(angle) - qkv[b] * std::sin(angle);
        out[b] = qkv[b] * std::cos(angle) + qkv[a] * std::sin(angle);
      }
    }
  }
  return out;
}

TEST(Rotary, RotatesQueriesAndKeysByEachTokensPosition) {
  set_compute_threads(2);
  const std::vector<std::int32_t> pos = pack_positions();
  const Vec qkv = naive::random_vec(pos.size() * 3 * kRotaryHidden, 1);
  const RotaryTable table(10000.0, kRotaryDim, 16);
  std::vector<float> x = naive::to_float(qkv);
  rotary_forward(x.data(), pos.data(), static_cast<std::int64_t>(pos.size()), kRotaryHeads, table);
  const Vec expected = naive_rotary(qkv, pos, 10000.0);
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], expected[i], 2e-6) << i;
  // V is the last third of every row: untouched.
  for (std::size_t t = 0; t < pos.size(); ++t) {
    for (std::int64_t c = 2 * kRotaryHidden; c < 3 * kRotaryHidden; ++c) {
      EXPECT_EQ(x[t * 3 * kRotaryHidden + static_cast<std::size_t>(c)], static_cast<float>(qkv[t * 3 * kRotaryHidden + static_cast<std::size_t>(c)]));
    }
  }
}

TEST(Rotary, TheBackwardIsTheForwardsTranspose) {
  const std::vector<std::int32_t> pos = pack_positions();
  const auto n = static_cast<std::int64_t>(pos.size());
  const RotaryTable table(160000.0, kRotaryDim, 16);
  std::vector<float> x = naive::to_float(naive::random_vec(pos.size() * 3 * kRotaryHidden, 2));
  std::vector<float> y = naive::to_float(naive::random_vec(pos.size() * 3 * kRotaryHidden, 3));
  std::vector<float> fx = x, by = y;
  rotary_forward(fx.data(), pos.data(), n, kRotaryHeads, table);
  rotary_backward(by.data(), pos.data(), n, kRotaryHeads, table);
  double left = 0, right = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    left += static_cast<double>(fx[i]) * y[i];
    right += static_cast<double>(x[i]) * by[i];
  }
  EXPECT_NEAR(left, right, 1e-4);
  rotary_backward(fx.data(), pos.data(), n, kRotaryHeads, table);  // and its inverse
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(fx[i], x[i], 1e-5) << i;
}

TEST(Rotary, TheTableRoundsLongPositionsAsTransformersDoes) {
  const RotaryTable table(160000.0, 64, 8192);
  for (const std::int64_t p : {std::int64_t{1}, std::int64_t{511}, std::int64_t{8191}}) {
    for (std::int64_t c = 0; c < 32; c += 7) {
      const float inv = 1.0f / std::pow(160000.0f, static_cast<float>(2 * c) / 64.0f);
      const float angle = static_cast<float>(p) * inv;
      EXPECT_NEAR(table.cos(p)[c], std::cos(static_cast<double>(angle)), 1e-6) << p << " " << c;
      EXPECT_NEAR(table.sin(p)[c], std::sin(static_cast<double>(angle)), 1e-6) << p << " " << c;
    }
  }
}

TEST(Rotary, Bf16RotatesInFloatAndRoundsOnce) {
  const std::vector<std::int32_t> pos = pack_positions();
  const RotaryTable table(10000.0, kRotaryDim, 16);
  const Vec qkv = naive::random_vec(pos.size() * 3 * kRotaryHidden, 4);
  std::vector<bf16> x16(qkv.size());
  Vec rounded(qkv.size());
  for (std::size_t i = 0; i < qkv.size(); ++i) rounded[i] = to_float(x16[i] = to_bf16(static_cast<float>(qkv[i])));
  rotary_forward(x16.data(), pos.data(), static_cast<std::int64_t>(pos.size()), kRotaryHeads, table);
  const Vec expected = naive_rotary(rounded, pos, 10000.0);
  for (std::size_t i = 0; i < x16.size(); ++i) {
    EXPECT_EQ(x16[i].bits, to_bf16(static_cast<float>(expected[i])).bits) << i;
  }
}

TEST(Rotary, RefusesAPositionBeyondTheTable) {
  const RotaryTable table(10000.0, kRotaryDim, 4);
  std::vector<float> x(3 * kRotaryHidden, 1.0f);
  const std::int32_t position = 4;
  EXPECT_THROW(rotary_forward(x.data(), &position, 1, kRotaryHeads, table), Error);
  EXPECT_THROW(RotaryTable(10000.0, 7, 4), Error);
}

}  // namespace
}  // namespace shmtrain::tensor
