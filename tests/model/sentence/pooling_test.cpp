// Pooling over packed and padded batches: each mode against its definition on the real
// tokens, the same vectors from both layouts, and the backward as the forward's transpose.
#include "shmtrain/model/sentence/pooling.hpp"

#include <gtest/gtest.h>

#include <random>

#include "shmtrain/common/error.hpp"

namespace shmtrain::testing {
namespace pooling_test {

using namespace model::sentence;

constexpr std::int64_t kWidth = 3;

// Rows of lengths 3, 1, 4 packed, and the same rows padded to 4.
struct Layouts {
  data::Batch packed, padded;
  std::vector<float> packed_hidden, padded_hidden;
};

Layouts layouts() {
  Layouts l;
  const std::vector<std::int64_t> lengths = {3, 1, 4};
  l.packed.batch = l.padded.batch = 3;
  l.packed.seq = l.padded.seq = 4;
  l.packed.offsets = {0, 3, 4, 8};
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  l.padded_hidden.assign(static_cast<std::size_t>(3 * 4 * kWidth), 99.0f);  // padding: large, never pooled
  for (std::int64_t b = 0; b < 3; ++b) {
    for (std::int64_t t = 0; t < 4; ++t) {
      l.padded.attention_mask.push_back(t < lengths[static_cast<std::size_t>(b)] ? 1 : 0);
      if (t >= lengths[static_cast<std::size_t>(b)]) continue;
      for (std::int64_t c = 0; c < kWidth; ++c) {
        const float v = u(rng);
        l.packed_hidden.push_back(v);
        l.padded_hidden[static_cast<std::size_t>((b * 4 + t) * kWidth + c)] = v;
      }
    }
  }
  return l;
}

TEST(Pooling, EveryModeGivesTheSameVectorsPackedAndPaddedAndMatchesItsDefinition) {
  const Layouts l = layouts();
  for (const PoolingMode mode : {PoolingMode::kMean, PoolingMode::kCls, PoolingMode::kMax, PoolingMode::kLastToken}) {
    SCOPED_TRACE(pooling_mode_name(mode));
    Pooling pooling(mode);
    std::vector<float> packed(3 * kWidth), padded(3 * kWidth);
    pooling.forward(packed.data(), l.packed_hidden.data(), l.packed, kWidth);
    Pooling padded_pooling(mode);
    padded_pooling.forward(padded.data(), l.padded_hidden.data(), l.padded, kWidth);
    EXPECT_EQ(packed, padded);
    // Row 0 (tokens 0..2 of the packed layout) by its definition.
    const float* h = l.packed_hidden.data();
    for (std::int64_t c = 0; c < kWidth; ++c) {
      const float a = h[c], b = h[kWidth + c], d = h[2 * kWidth + c];
      const float expected = mode == PoolingMode::kMean  ? (a + b + d) / 3
                             : mode == PoolingMode::kCls ? a
                             : mode == PoolingMode::kMax ? std::max({a, b, d})
                                                         : d;
      EXPECT_FLOAT_EQ(packed[static_cast<std::size_t>(c)], expected);
    }
  }
}

TEST(Pooling, BackwardIsTheTransposeOfTheForward) {
  const Layouts l = layouts();
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const PoolingMode mode : {PoolingMode::kMean, PoolingMode::kCls, PoolingMode::kMax, PoolingMode::kLastToken}) {
    SCOPED_TRACE(pooling_mode_name(mode));
    Pooling pooling(mode);
    std::vector<float> pooled(3 * kWidth), dpooled(3 * kWidth);
    for (float& v : dpooled) v = u(rng);
    pooling.forward(pooled.data(), l.padded_hidden.data(), l.padded, kWidth);
    std::vector<float> dhidden(l.padded_hidden.size(), 0.0f);
    pooling.backward_add(dhidden.data(), dpooled.data(), l.padded, kWidth);
    // <dpooled, J dh> = <J^T dpooled, dh> for a direction dh on the real tokens (max and the
    // other modes are linear around this point: no ties in random data).
    std::vector<float> dh(l.padded_hidden.size(), 0.0f);
    for (std::size_t i = 0; i < dh.size(); ++i) {
      if (l.padded.attention_mask[i / kWidth] != 0) dh[i] = u(rng);
    }
    std::vector<float> moved = l.padded_hidden;
    for (std::size_t i = 0; i < moved.size(); ++i) moved[i] += 1e-3f * dh[i];
    std::vector<float> pooled_moved(3 * kWidth);
    Pooling again(mode);
    again.forward(pooled_moved.data(), moved.data(), l.padded, kWidth);
    double lhs = 0, rhs = 0;
    for (std::size_t i = 0; i < pooled.size(); ++i) lhs += dpooled[i] * (pooled_moved[i] - pooled[i]) / 1e-3;
    for (std::size_t i = 0; i < dh.size(); ++i) rhs += dhidden[i] * dh[i];
    EXPECT_NEAR(lhs, rhs, 1e-3);
    for (std::size_t i = 0; i < dhidden.size(); ++i) {
      if (l.padded.attention_mask[i / kWidth] == 0) {
        EXPECT_EQ(dhidden[i], 0.0f) << "padding got a gradient at " << i;
      }
    }
  }
}

TEST(Pooling, AnUnknownModeIsRefusedNamingTheFlag) {
  try {
    parse_pooling_mode("avg", "--pooling");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "--pooling: 'avg' is not a pooling mode: give mean, cls, max or lasttoken");
  }
}

}  // namespace pooling_test
}  // namespace shmtrain::testing
