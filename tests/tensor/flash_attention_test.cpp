// The tiled attention (flash_attention.hpp) against the textbook computation in double:
// forward outputs and the three input gradients, global and windowed, on lengths around the
// 64-token tile (1, 2, 127, 128, 129, 1000) and a pack of unequal sequences; the textbook
// backward itself against finite differences; bf16 against the textbook on bf16-rounded inputs.
#include "shmtrain/tensor/flash_attention.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "shmtrain/tensor/threads.hpp"
#include "support/test_support.hpp"
#include "tensor/naive.hpp"

namespace shmtrain::tensor {
namespace {

using naive::Vec;

struct Problem {
  std::vector<std::int32_t> offsets;
  std::int64_t heads = 2, head_dim = 16, window = -1;
  FlashAttentionShape shape() const {
    return {static_cast<std::int64_t>(offsets.size()) - 1, heads, head_dim, offsets.data(), window};
  }
  std::int64_t tokens() const { return offsets.back(); }
  std::int64_t hidden() const { return heads * head_dim; }
};

Problem problem_of(const std::vector<std::int32_t>& lengths, std::int64_t window) {
  Problem p;
  p.window = window;
  p.offsets = {0};
  for (std::int32_t len : lengths) p.offsets.push_back(p.offsets.back() + len);
  return p;
}

bool sees(const Problem& p, std::int64_t i, std::int64_t j) {
  return p.window < 0 || std::abs(i - j) <= p.window;
}

// Index of element c of head h in the given third (0 Q, 1 K, 2 V) of token t's qkv row.
std::size_t qkv_at(const Problem& p, std::int64_t t, int third, std::int64_t h, std::int64_t c) {
  return static_cast<std::size_t>(t * 3 * p.hidden() + third * p.hidden() + h * p.head_dim + c);
}

// Token i's softmax probabilities over the keys [begin, end) of its sequence, head h (0 outside
// the window).
std::vector<double> naive_probabilities(const Problem& p, const Vec& qkv, std::int64_t i, std::int64_t h,
                                        std::int64_t begin, std::int64_t end) {
  const double scale = 1.0 / std::sqrt(static_cast<double>(p.head_dim));
  std::vector<double> w(static_cast<std::size_t>(end - begin), 0.0);
  double max = -std::numeric_limits<double>::infinity();
  for (std::int64_t j = begin; j < end; ++j) {
    if (!sees(p, i, j)) continue;
    double dot = 0;
    for (std::int64_t c = 0; c < p.head_dim; ++c) dot += qkv[qkv_at(p, i, 0, h, c)] * qkv[qkv_at(p, j, 1, h, c)];
    w[j - begin] = dot * scale;
    max = std::max(max, w[j - begin]);
  }
  double sum = 0;
  for (std::int64_t j = begin; j < end; ++j) {
    w[j - begin] = sees(p, i, j) ? std::exp(w[j - begin] - max) : 0.0;
    sum += w[j - begin];
  }
  for (double& x : w) x /= sum;
  return w;
}

// out (N, H) = softmax(Q K^T / sqrt(d)) V per sequence and head, keys outside the window masked.
Vec naive_forward(const Problem& p, const Vec& qkv) {
  Vec out(static_cast<std::size_t>(p.tokens() * p.hidden()), 0.0);
  for (std::size_t b = 0; b + 1 < p.offsets.size(); ++b) {
    const std::int64_t begin = p.offsets[b], end = p.offsets[b + 1];
    for (std::int64_t h = 0; h < p.heads; ++h) {
      for (std::int64_t i = begin; i < end; ++i) {
        const std::vector<double> prob = naive_probabilities(p, qkv, i, h, begin, end);
        for (std::int64_t j = begin; j < end; ++j) {
          for (std::int64_t c = 0; c < p.head_dim; ++c) {
            out[i * p.hidden() + h * p.head_dim + c] += prob[j - begin] * qkv[qkv_at(p, j, 2, h, c)];
          }
        }
      }
    }
  }
  return out;
}

// d(sum(dout * out))/d(qkv) by the softmax's textbook backward.
Vec naive_backward(const Problem& p, const Vec& qkv, const Vec& dout) {
  const std::int64_t d = p.head_dim;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  Vec dqkv(qkv.size(), 0.0);
  const auto at = [&](std::int64_t token, int third, std::int64_t h, std::int64_t c) {
    return qkv_at(p, token, third, h, c);
  };
  for (std::size_t b = 0; b + 1 < p.offsets.size(); ++b) {
    const std::int64_t begin = p.offsets[b], end = p.offsets[b + 1];
    for (std::int64_t h = 0; h < p.heads; ++h) {
      for (std::int64_t i = begin; i < end; ++i) {
        const std::vector<double> prob = naive_probabilities(p, qkv, i, h, begin, end);
        std::vector<double> dprob(prob.size(), 0.0);
        double row = 0;
        for (std::int64_t j = begin; j < end; ++j) {
          for (std::int64_t c = 0; c < d; ++c) {
            dprob[j - begin] += dout[i * p.hidden() + h * d + c] * qkv[at(j, 2, h, c)];
            dqkv[at(j, 2, h, c)] += prob[j - begin] * dout[i * p.hidden() + h * d + c];
          }
          row += prob[j - begin] * dprob[j - begin];
        }
        for (std::int64_t j = begin; j < end; ++j) {
          const double dscore = prob[j - begin] * (dprob[j - begin] - row) * scale;
          for (std::int64_t c = 0; c < d; ++c) {
            dqkv[at(i, 0, h, c)] += dscore * qkv[at(j, 1, h, c)];
            dqkv[at(j, 1, h, c)] += dscore * qkv[at(i, 0, h, c)];
          }
        }
      }
    }
  }
  return dqkv;
}

double max_abs_error(const std::vector<float>& actual, const Vec& expected) {
  double worst = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) worst = std::max(worst, std::abs(actual[i] - expected[i]));
  return worst;
}

struct FlashCase {
  std::vector<std::int32_t> lengths;
  std::int64_t window;
};

class FlashAttentionCases : public ::testing::TestWithParam<FlashCase> {};

TEST_P(FlashAttentionCases, ForwardAndBackwardMatchTheTextbook) {
  set_compute_threads(2);
  const Problem p = problem_of(GetParam().lengths, GetParam().window);
  const Vec qkv = naive::random_vec(static_cast<std::size_t>(p.tokens() * 3 * p.hidden()), 7);
  const Vec dout = naive::random_vec(static_cast<std::size_t>(p.tokens() * p.hidden()), 8);
  std::vector<float> out(static_cast<std::size_t>(p.tokens() * p.hidden()));
  std::vector<float> lse(static_cast<std::size_t>(p.tokens() * p.heads));
  const std::vector<float> qkv32 = naive::to_float(qkv);
  flash_attention_forward(out.data(), lse.data(), qkv32.data(), p.shape());
  EXPECT_LT(max_abs_error(out, naive_forward(p, qkv)), 2e-5);

  std::vector<float> dqkv(qkv.size(), std::numeric_limits<float>::quiet_NaN());
  const std::vector<float> dout32 = naive::to_float(dout);
  flash_attention_backward(dqkv.data(), dout32.data(), qkv32.data(), out.data(), lse.data(), p.shape());
  EXPECT_LT(max_abs_error(dqkv, naive_backward(p, qkv, dout)), 5e-5);
}

INSTANTIATE_TEST_SUITE_P(Lengths, FlashAttentionCases,
                         ::testing::Values(FlashCase{{1}, -1}, FlashCase{{2}, -1}, FlashCase{{127}, -1}, FlashCase{{128}, -1},
                                           FlashCase{{129}, -1}, FlashCase{{1000}, -1}, FlashCase{{5, 64, 130, 1, 77}, -1},
                                           FlashCase{{1}, 4}, FlashCase{{2}, 4}, FlashCase{{127}, 4}, FlashCase{{129}, 64},
                                           FlashCase{{1000}, 64}, FlashCase{{1000}, 3}, FlashCase{{5, 64, 130, 1, 77}, 8}));

TEST(FlashAttention, TheTextbookBackwardMatchesFiniteDifferences) {
  const Problem p = problem_of({3, 6}, 2);
  const Vec qkv = naive::random_vec(static_cast<std::size_t>(p.tokens() * 3 * p.hidden()), 3);
  const Vec dout = naive::random_vec(static_cast<std::size_t>(p.tokens() * p.hidden()), 4);
  const Vec numeric =
      naive::numeric_grad(qkv, [&](const Vec& x) { return naive::dot(naive_forward(p, x), dout); });
  const Vec analytic = naive_backward(p, qkv, dout);
  for (std::size_t i = 0; i < qkv.size(); ++i) EXPECT_NEAR(analytic[i], numeric[i], 1e-6) << i;
}

TEST(FlashAttention, ResultsDoNotDependOnTheThreadCount) {
  const Problem p = problem_of({300, 70}, -1);
  const Vec qkv = naive::random_vec(static_cast<std::size_t>(p.tokens() * 3 * p.hidden()), 5);
  const std::vector<float> qkv32 = naive::to_float(qkv);
  const std::vector<float> dout32 = naive::to_float(naive::random_vec(static_cast<std::size_t>(p.tokens() * p.hidden()), 6));
  std::vector<std::vector<float>> grads;
  for (int threads : {1, 2}) {
    set_compute_threads(threads);
    std::vector<float> out(static_cast<std::size_t>(p.tokens() * p.hidden()));
    std::vector<float> lse(static_cast<std::size_t>(p.tokens() * p.heads));
    std::vector<float> dqkv(qkv32.size());
    flash_attention_forward(out.data(), lse.data(), qkv32.data(), p.shape());
    flash_attention_backward(dqkv.data(), dout32.data(), qkv32.data(), out.data(), lse.data(), p.shape());
    grads.push_back(dqkv);
  }
  EXPECT_EQ(grads[0], grads[1]);
}

TEST(FlashAttention, Bf16MatchesTheTextbookOnRoundedInputs) {
  set_compute_threads(2);
  for (const std::int64_t window : {std::int64_t{-1}, std::int64_t{16}}) {
    const Problem p = problem_of({129, 40}, window);
    Vec qkv = naive::random_vec(static_cast<std::size_t>(p.tokens() * 3 * p.hidden()), 9);
    Vec dout = naive::random_vec(static_cast<std::size_t>(p.tokens() * p.hidden()), 10);
    std::vector<bf16> qkv16(qkv.size()), dout16(dout.size());
    for (std::size_t i = 0; i < qkv.size(); ++i) qkv[i] = to_float(qkv16[i] = to_bf16(static_cast<float>(qkv[i])));
    for (std::size_t i = 0; i < dout.size(); ++i) dout[i] = to_float(dout16[i] = to_bf16(static_cast<float>(dout[i])));
    std::vector<bf16> out16(dout.size()), dqkv16(qkv.size());
    std::vector<float> lse(static_cast<std::size_t>(p.tokens() * p.heads));
    flash_attention_forward(out16.data(), lse.data(), qkv16.data(), p.shape());
    flash_attention_backward(dqkv16.data(), dout16.data(), qkv16.data(), out16.data(), lse.data(), p.shape());
    std::vector<float> out(out16.size()), dqkv(dqkv16.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = to_float(out16[i]);
    for (std::size_t i = 0; i < dqkv.size(); ++i) dqkv[i] = to_float(dqkv16[i]);
    // One bf16 rounding of the outputs (2^-8 relative) over values of order 1, and the
    // backward's delta taken from the rounded forward output.
    EXPECT_LT(max_abs_error(out, naive_forward(p, qkv)), 2e-2) << window;
    EXPECT_LT(max_abs_error(dqkv, naive_backward(p, qkv, dout)), 5e-2) << window;
  }
}

}  // namespace
}  // namespace shmtrain::tensor
