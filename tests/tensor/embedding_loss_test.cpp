// Embedding gather / scatter-add and the losses (cross-entropy, MSE).
#include <cmath>

#include <gtest/gtest.h>

#include "shmtrain/tensor/embedding.hpp"
#include "shmtrain/tensor/loss.hpp"
#include "support/test_support.hpp"
#include "tensor/naive.hpp"

namespace shmtrain::tensor {
namespace {

using naive::Vec;

TEST(Embedding, ForwardSumsTheThreeTablesAndBackwardSkipsThePadRow) {
  const std::int64_t batch = 2, seq = 3, hidden = 2, vocab = 4;
  // Integer-valued tables: sums are exact.
  const std::vector<float> wte = {0, 0, 1, 1, 2, 2, 3, 3}, wpe = {10, 10, 20, 20, 30, 30}, wtt = {100, 100, 200, 200};
  const std::vector<std::int32_t> ids = {1, 3, 0, 3, 3, 2}, tt = {0, 1, 1, 0, 0, 0};
  std::vector<float> out(12);
  const std::vector<std::int32_t> positions = {0, 1, 2, 0, 1, 2};
  embedding_forward(out.data(), ids.data(), tt.data(), positions.data(), wte.data(), wpe.data(), wtt.data(),
                    batch * seq, hidden);
  EXPECT_EQ(out, (std::vector<float>{111, 111, 223, 223, 230, 230, 113, 113, 123, 123, 132, 132}));

  std::vector<float> dout(12);
  for (int i = 0; i < 12; ++i) dout[i] = static_cast<float>(i + 1);
  std::vector<float> dwte(vocab * hidden, 0), dwpe(3 * hidden, 0), dwtt(2 * hidden, 0);
  embedding_backward(dwte.data(), dwpe.data(), dwtt.data(), dout.data(), ids.data(), tt.data(),
                     positions.data(), batch * seq, hidden, 0);
  // id 0 (pad) gets nothing; id 3 appears at tokens 1, 3, 4: rows (3,4) + (7,8) + (9,10).
  EXPECT_EQ(dwte, (std::vector<float>{0, 0, 1, 2, 11, 12, 19, 22}));
  EXPECT_EQ(dwpe, (std::vector<float>{1 + 7, 2 + 8, 3 + 9, 4 + 10, 5 + 11, 6 + 12}));
  EXPECT_EQ(dwtt, (std::vector<float>{1 + 7 + 9 + 11, 2 + 8 + 10 + 12, 3 + 5, 4 + 6}));
}

double naive_ce(const Vec& logits, const std::vector<std::int32_t>& labels, std::int64_t batch, std::int64_t nl) {
  double total = 0;
  for (std::int64_t b = 0; b < batch; ++b) {
    double sum = 0;
    for (std::int64_t l = 0; l < nl; ++l) sum += std::exp(logits[b * nl + l]);
    total += std::log(sum) - logits[b * nl + labels[b]];
  }
  return total / batch;
}

TEST(CrossEntropy, MeanLossAndGradient) {
  const std::int64_t batch = 5, nl = 3;
  const Vec z = naive::random_vec(batch * nl, 51, 2.0);
  const std::vector<std::int32_t> labels = {0, 2, 1, 1, 0};
  const auto zf = naive::to_float(z);
  std::vector<float> probs(zf.size()), dz(zf.size());
  const float loss = cross_entropy_forward(probs.data(), zf.data(), labels.data(), batch, nl);
  EXPECT_NEAR(loss, naive_ce(z, labels, batch, nl), 1e-6);
  cross_entropy_backward(dz.data(), probs.data(), labels.data(), batch, nl, 1.0f);
  const Vec g = naive::numeric_grad(z, [&](const Vec& v) { return naive_ce(v, labels, batch, nl); });
  EXPECT_TRUE(testing::all_close(dz, naive::to_float(g), 1e-6, 1e-4));
}

TEST(CrossEntropy, ConfidentWrongLabelStaysFinite) {
  const std::vector<float> z = {100.0f, -100.0f};
  const std::vector<std::int32_t> label = {1};
  std::vector<float> probs(2);
  EXPECT_FLOAT_EQ(cross_entropy_forward(probs.data(), z.data(), label.data(), 1, 2), 200.0f);
}

TEST(Mse, MeanLossAndGradient) {
  const std::vector<float> pred = {1, 2, 3}, target = {1, 4, 0};
  EXPECT_FLOAT_EQ(mse_forward(pred.data(), target.data(), 3), (0 + 4 + 9) / 3.0f);
  std::vector<float> d(3);
  mse_backward(d.data(), pred.data(), target.data(), 3, 1.0f);
  EXPECT_TRUE(testing::all_close(d, std::vector<float>{0, -4.0f / 3, 2.0f}, 1e-7));
}

TEST(BceWithLogits, IsTheWeightedLogLossAndItsGradientStableAtLargeLogits) {
  // Soft targets, pos_weight 2.5, logits up to |x| = 40 (where log(sigmoid) of the naive form
  // underflows in float32; the stable form does not).
  const std::vector<float> x = {-3.0f, -0.5f, 0.0f, 0.7f, 4.0f, 40.0f, -40.0f}, y = {0, 1, 0.25f, 0.75f, 1, 0, 1};
  const float pw = 2.5f;
  double expected = 0;
  for (std::size_t b = 0; b < x.size(); ++b) {
    const double s = 1.0 / (1.0 + std::exp(-static_cast<double>(x[b])));
    const double log_s = std::log(s), log_1s = std::log1p(-s);
    expected += -(pw * y[b] * (std::isinf(log_s) ? static_cast<double>(x[b]) : log_s) +
                  (1 - y[b]) * (std::isinf(log_1s) ? -static_cast<double>(x[b]) : log_1s));
  }
  const auto n = static_cast<std::int64_t>(x.size());
  EXPECT_NEAR(bce_with_logits_forward(x.data(), y.data(), n, pw), expected / static_cast<double>(n), 1e-5);
  std::vector<float> d(x.size());
  bce_with_logits_backward(d.data(), x.data(), y.data(), n, pw, 0.5f);
  for (std::size_t b = 0; b < x.size(); ++b) {  // finite differences of the (double) mean loss
    std::vector<float> plus = x, minus = x;
    const float h = 1e-2f;
    plus[b] += h;
    minus[b] -= h;
    const double fd = (bce_with_logits_forward(plus.data(), y.data(), n, pw) -
                       bce_with_logits_forward(minus.data(), y.data(), n, pw)) / (2 * h);
    EXPECT_NEAR(d[b], 0.5 * fd, 2e-4) << "logit " << x[b];
  }
  // pos_weight 1 and hard targets: sigmoid(x) - y.
  const std::vector<float> one = {0.3f}, target = {1.0f};
  bce_with_logits_backward(d.data(), one.data(), target.data(), 1, 1.0f, 1.0f);
  EXPECT_NEAR(d[0], 1.0 / (1.0 + std::exp(-0.3)) - 1.0, 1e-6);
}

}  // namespace
}  // namespace shmtrain::tensor
