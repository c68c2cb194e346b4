// Softmax and the attention core: forward against naive loops, backward against finite
// differences, padding masks (including a row whose keys are all padding), dropout.
#include "shmtrain/tensor/attention.hpp"

#include <limits>

#include <gtest/gtest.h>

#include "shmtrain/tensor/softmax.hpp"
#include "support/test_support.hpp"
#include "tensor/naive.hpp"

namespace shmtrain::tensor {
namespace {

using naive::Vec;
constexpr double kLowest = std::numeric_limits<float>::lowest();

TEST(Softmax, BackwardMatchesFiniteDifferences) {
  const std::int64_t rows = 3, cols = 5;
  const Vec s = naive::random_vec(rows * cols, 41), dy = naive::random_vec(rows * cols, 42);
  const Vec mask = {0, 0, 0, kLowest, kLowest};
  const auto sf = naive::to_float(s), mf = naive::to_float(mask), dyf = naive::to_float(dy);
  std::vector<float> p(sf.size()), ds(sf.size());
  softmax_forward(p.data(), sf.data(), mf.data(), rows, cols);
  EXPECT_TRUE(testing::all_close(p, naive::to_float(naive::softmax_rows(s, mask, rows, cols)), 1e-6, 1e-6));
  softmax_backward(ds.data(), dyf.data(), p.data(), rows, cols);
  const Vec g = naive::numeric_grad(s, [&](const Vec& v) { return naive::dot(dy, naive::softmax_rows(v, mask, rows, cols)); });
  EXPECT_TRUE(testing::all_close(ds, naive::to_float(g), 1e-5, 1e-4));
}

struct AttnCase {
  std::int64_t batch, seq, heads, dim;
};
class AttentionShapes : public ::testing::TestWithParam<AttnCase> {};

// Mask: batch row b has its last b tokens padded; the last row of a batch > 2 is all padding.
Vec make_mask(std::int64_t batch, std::int64_t seq) {
  Vec mask(static_cast<std::size_t>(batch * seq), 0.0);
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t t = 0; t < seq; ++t)
      if (t >= seq - b || (batch > 2 && b == batch - 1)) mask[b * seq + t] = kLowest;
  return mask;
}

TEST_P(AttentionShapes, ForwardMatchesNaiveAndBackwardMatchesFiniteDifferences) {
  const auto [batch, seq, heads, dim] = GetParam();
  const AttentionShape shape{batch, seq, heads, dim};
  const std::int64_t hid = heads * dim;
  const Vec qkv = naive::random_vec(static_cast<std::size_t>(batch * seq * 3 * hid), 43);
  const Vec dy = naive::random_vec(static_cast<std::size_t>(batch * seq * hid), 44);
  const Vec mask = make_mask(batch, seq);
  const auto qkvf = naive::to_float(qkv), dyf = naive::to_float(dy), maskf = naive::to_float(mask);
  std::vector<float> out(dyf.size()), probs(static_cast<std::size_t>(batch * heads * seq * seq)), dqkv(qkvf.size());
  attention_forward(out.data(), probs.data(), qkvf.data(), maskf.data(), shape, {}, nullptr);
  EXPECT_TRUE(testing::all_close(out, naive::to_float(naive::attention(qkv, mask, batch, seq, heads, dim)), 1e-5, 1e-5));
  attention_backward(dqkv.data(), dyf.data(), qkvf.data(), probs.data(), shape, {}, nullptr);
  Vec g = naive::numeric_grad(qkv, [&](const Vec& v) {
    return naive::dot(dy, naive::attention(v, mask, batch, seq, heads, dim));
  });
  // A batch row whose keys are all padding attends uniformly whatever Q and K are, so the true
  // derivative for its Q and K is zero; the kernel returns the autograd value instead, as
  // PyTorch does (softmax backward does not know the scores were absorbed). Compare V there.
  std::vector<float> actual = dqkv;
  if (batch > 2) {
    for (std::int64_t t = 0; t < seq; ++t)
      for (std::int64_t c = 0; c < 2 * hid; ++c) {
        const std::size_t i = static_cast<std::size_t>(((batch - 1) * seq + t) * 3 * hid + c);
        actual[i] = 0.0f;
        g[i] = 0.0;
      }
  }
  EXPECT_TRUE(testing::all_close(actual, naive::to_float(g), 1e-4, 1e-3));
}

INSTANTIATE_TEST_SUITE_P(Shapes, AttentionShapes,
                         ::testing::Values(AttnCase{1, 1, 1, 1}, AttnCase{1, 3, 2, 4}, AttnCase{2, 5, 3, 2},
                                           AttnCase{4, 7, 2, 3}));

TEST(Attention, DropoutBackwardMatchesFiniteDifferencesOfTheSameMask) {
  // With a fixed key the dropout mask is a fixed function, so the kernel stays differentiable.
  const AttentionShape shape{2, 6, 2, 3};
  const std::int64_t hid = 6;
  const AttentionDropout dropout{0.3f, dropout_key(1, 0, 7, 3)};
  const Vec qkv = naive::random_vec(2 * 6 * 3 * hid, 45), dy = naive::random_vec(2 * 6 * hid, 46);
  const auto dyf = naive::to_float(dy);
  const std::vector<float> mask(12, 0.0f);
  std::vector<std::uint16_t> recorded(static_cast<std::size_t>(attention_dropout_mask_words(shape)));
  auto forward = [&](const std::vector<float>& x, std::vector<float>& probs, std::vector<std::uint16_t>& bits) {
    std::vector<float> out(dyf.size());
    attention_forward(out.data(), probs.data(), x.data(), mask.data(), shape, dropout, bits.data());
    return out;
  };
  std::vector<float> probs(2 * 2 * 36), dqkv(qkv.size());
  const auto xf = naive::to_float(qkv);
  const auto out = forward(xf, probs, recorded);
  int zeros = 0;
  for (float v : out) zeros += v == 0.0f;
  EXPECT_EQ(zeros, 0) << "dropout applies to probabilities, not outputs";
  attention_backward(dqkv.data(), dyf.data(), xf.data(), probs.data(), shape, dropout, recorded.data());
  // Finite differences through the float kernel itself (the naive reference has no dropout):
  // a larger step and tolerance for float rounding.
  Vec g(qkv.size());
  for (std::size_t i = 0; i < qkv.size(); ++i) {
    auto xp = xf, xm = xf;
    xp[i] += 1e-2f;
    xm[i] -= 1e-2f;
    std::vector<float> scratch(probs.size());
    std::vector<std::uint16_t> bits(recorded.size());
    const auto up = forward(xp, scratch, bits), down = forward(xm, scratch, bits);
    double s = 0;
    for (std::size_t j = 0; j < up.size(); ++j) s += dy[j] * (static_cast<double>(up[j]) - down[j]);
    g[i] = s / 2e-2;
  }
  EXPECT_TRUE(testing::all_close(dqkv, naive::to_float(g), 2e-3, 2e-2));
}

}  // namespace
}  // namespace shmtrain::tensor
