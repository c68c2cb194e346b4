// DeBERTa's relative positions and disentangled attention: the buckets against values worked
// by hand from transformers' make_log_bucket_position, and the kernel against a naive per-pair
// loop in double (forward) and its finite-difference gradients (backward), packed and padded,
// with both position terms and with c2p alone, fp32 and bf16.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/tensor/bf16.hpp"
#include "shmtrain/tensor/disentangled_attention.hpp"
#include "shmtrain/tensor/threads.hpp"
#include "tensor/naive.hpp"

namespace shmtrain::tensor {
// Its own namespace: the unity build puts test files side by side.
namespace disentangled_attention_test {
namespace {

// make_log_bucket_position(r, 8, 40): mid 4; |r| <= 4 stays; else
// ceil(ln(|r| / 4) / ln(39 / 4) * 3) + 4 with ln(9.75) = 2.27727:
//   r = 5:  ln 1.25 = 0.22314 -> 0.0980 * 3 = 0.294 -> 1 + 4 = 5
//   r = 10: ln 2.5 = 0.91629  -> 0.4024 * 3 = 1.207 -> 2 + 4 = 6
//   r = 23: ln 5.75 = 1.74920 -> 0.7681 * 3 = 2.304 -> 3 + 4 = 7
//   r = 39: ln 9.75           -> 1 * 3 = 3           -> 3 + 4 = 7
//   r = 45: ln 11.25 = 2.42037 -> 1.0628 * 3 = 3.188 -> 4 + 4 = 8 (past max_position)
TEST(RelativePositions, LogBucketsWorkedByHand) {
  const RelativePositions p{8, 40};
  const std::int64_t r[] = {0, 1, 3, 4, 5, 10, 23, 39, 45};
  const std::int64_t want[] = {0, 1, 3, 4, 5, 6, 7, 7, 8};
  for (std::size_t i = 0; i < std::size(r); ++i) {
    EXPECT_EQ(p.bucket(r[i]), want[i]) << "r = " << r[i];
    EXPECT_EQ(p.bucket(-r[i]), -want[i]) << "r = " << -r[i];
  }
  // The table has 16 rows, row 8 + bucket, clamped: r = 45 reads row 15, not 16.
  EXPECT_EQ(p.span(), 8);
  EXPECT_EQ(p.c2p_row(0), 8);
  EXPECT_EQ(p.c2p_row(-10), 2);
  EXPECT_EQ(p.c2p_row(45), 15);
  EXPECT_EQ(p.c2p_row(-45), 0);
  for (std::int64_t d = -60; d <= 60; ++d) EXPECT_EQ(p.p2c_row(d), p.c2p_row(d)) << d;
}

// DeBERTa-v3-base's: position_buckets 256, max_relative_positions 512 (mid 128, ln(511 / 128)
// = 1.38435, 127 log steps): r = 129 -> ceil(0.00778 / 1.38435 * 127 = 0.714) + 128 = 129;
// r = 200 -> ceil(0.44629 / 1.38435 * 127 = 40.94) + 128 = 169; r = 300 -> ceil(0.85175 /
// 1.38435 * 127 = 78.14) + 128 = 207; r = 511 -> 127 + 128 = 255.
TEST(RelativePositions, DebertaV3BaseBuckets) {
  const RelativePositions p{256, 512};
  EXPECT_EQ(p.bucket(127), 127);
  EXPECT_EQ(p.bucket(128), 128);
  EXPECT_EQ(p.bucket(129), 129);
  EXPECT_EQ(p.bucket(200), 169);
  EXPECT_EQ(p.bucket(-200), -169);
  EXPECT_EQ(p.bucket(300), 207);
  EXPECT_EQ(p.bucket(511), 255);
  EXPECT_EQ(p.c2p_row(511), 511);
  EXPECT_EQ(p.c2p_row(-511), 1);
}

TEST(RelativePositions, WithoutBucketsDistancesAreClamped) {
  const RelativePositions p{-1, 16};  // span 16, 32 rows
  EXPECT_EQ(p.bucket(23), 23);
  EXPECT_EQ(p.c2p_row(3), 19);
  EXPECT_EQ(p.c2p_row(23), 31);
  EXPECT_EQ(p.c2p_row(-23), 0);
}

constexpr std::int64_t kHeads = 2, kDim = 4, kHidden = kHeads * kDim;

struct Case {
  std::vector<std::int32_t> lengths;
  RelativePositions positions;
  bool c2p = true, p2c = true;
  bool padded = false;
};

// scores[i, j] = (q.k + q.Kr[c2p] + k.Qr[p2c]) * s, softmax over the sequence, probs V: every
// pair by hand. qkv (N, 3H) packed; tables (2 span, H).
naive::Vec naive_forward(const naive::Vec& qkv, const naive::Vec& kr, const naive::Vec& qr, const Case& c) {
  const std::int64_t n = std::accumulate(c.lengths.begin(), c.lengths.end(), std::int64_t{0});
  naive::Vec out(static_cast<std::size_t>(n * kHidden));
  const double s = 1.0 / std::sqrt(static_cast<double>(kDim) * (1 + (c.c2p ? 1 : 0) + (c.p2c ? 1 : 0)));
  std::int64_t first = 0;
  auto at = [&](std::int64_t token, int part, std::int64_t h, std::int64_t e) {
    return qkv[static_cast<std::size_t>(token * 3 * kHidden + part * kHidden + h * kDim + e)];
  };
  for (const std::int32_t len : c.lengths) {
    for (std::int64_t h = 0; h < kHeads; ++h) {
      for (std::int64_t i = 0; i < len; ++i) {
        std::vector<double> score(static_cast<std::size_t>(len));
        for (std::int64_t j = 0; j < len; ++j) {
          double v = 0;
          const std::int64_t c2p = c.positions.c2p_row(i - j);
          const std::int64_t p2c = c.positions.p2c_row(i - j);
          for (std::int64_t e = 0; e < kDim; ++e) {
            const double q = at(first + i, 0, h, e);
            const double k = at(first + j, 1, h, e);
            v += q * k;
            if (c.c2p) v += q * kr[static_cast<std::size_t>(c2p * kHidden + h * kDim + e)];
            if (c.p2c) v += k * qr[static_cast<std::size_t>(p2c * kHidden + h * kDim + e)];
          }
          score[static_cast<std::size_t>(j)] = v * s;
        }
        const double top = *std::max_element(score.begin(), score.end());
        double sum = 0;
        for (double& v : score) sum += (v = std::exp(v - top));
        for (std::int64_t e = 0; e < kDim; ++e) {
          double o = 0;
          for (std::int64_t j = 0; j < len; ++j)
            o += score[static_cast<std::size_t>(j)] / sum * at(first + j, 2, h, e);
          out[static_cast<std::size_t>((first + i) * kHidden + h * kDim + e)] = o;
        }
      }
    }
    first += len;
  }
  return out;
}

template <typename T>
T as(double v) {
  if constexpr (std::is_same_v<T, bf16>) {
    return to_bf16(static_cast<float>(v));
  } else {
    return static_cast<float>(v);
  }
}
inline float value(float v) { return v; }
inline float value(bf16 v) { return to_float(v); }

struct Result {
  std::vector<float> out, dqkv, dkr, dqr;
};

// The kernel on the case, in the packed or the padded layout; results in the packed layout.
template <typename T>
Result run_kernel(const naive::Vec& qkv, const naive::Vec& kr, const naive::Vec& qr, const naive::Vec& dout,
                  const Case& c) {
  const auto batch = static_cast<std::int64_t>(c.lengths.size());
  std::vector<std::int32_t> offsets = {0};
  for (const std::int32_t l : c.lengths) offsets.push_back(offsets.back() + l);
  const std::int64_t longest = *std::max_element(c.lengths.begin(), c.lengths.end());
  const std::int64_t n = offsets.back();
  const std::int64_t rows = c.padded ? batch * longest : n;
  auto place = [&](std::int64_t token) {  // a packed token's row in the layout
    if (!c.padded) return token;
    const auto b = std::upper_bound(offsets.begin(), offsets.end(), token) - offsets.begin() - 1;
    return b * longest + (token - offsets[static_cast<std::size_t>(b)]);
  };
  auto lay_out = [&](const naive::Vec& packed, std::int64_t width) {
    std::vector<T> v(static_cast<std::size_t>(rows * width), T{});
    for (std::int64_t t = 0; t < n; ++t)
      for (std::int64_t e = 0; e < width; ++e)
        v[static_cast<std::size_t>(place(t) * width + e)] =
            as<T>(packed[static_cast<std::size_t>(t * width + e)]);
    return v;
  };
  std::vector<T> x = lay_out(qkv, 3 * kHidden);
  std::vector<T> dy = lay_out(dout, kHidden);
  std::vector<float> mask;
  if (c.padded) {
    mask.assign(static_cast<std::size_t>(rows), 0.0f);
    for (std::int64_t b = 0; b < batch; ++b)
      for (std::int64_t t = c.lengths[static_cast<std::size_t>(b)]; t < longest; ++t)
        mask[static_cast<std::size_t>(b * longest + t)] = std::numeric_limits<float>::lowest();
  }
  const std::int64_t table = c.positions.table_rows() * kHidden;
  std::vector<float> kr32(kr.begin(), kr.end()), qr32(qr.begin(), qr.end());
  std::vector<bf16> kr16(kr32.size()), qr16(qr32.size());
  convert_to_bf16(kr16.data(), kr32.data(), table);
  convert_to_bf16(qr16.data(), qr32.data(), table);
  Result r;
  r.dkr.assign(static_cast<std::size_t>(table), 0.0f);
  r.dqr.assign(static_cast<std::size_t>(table), 0.0f);
  PositionTables tables{c.positions};
  constexpr bool kBf16 = std::is_same_v<T, bf16>;
  if (c.c2p) {
    if constexpr (kBf16)
      tables.key16 = kr16.data();
    else
      tables.key = kr32.data();
    tables.d_key = r.dkr.data();
  }
  if (c.p2c) {
    if constexpr (kBf16)
      tables.query16 = qr16.data();
    else
      tables.query = qr32.data();
    tables.d_query = r.dqr.data();
  }
  const AttentionShape shape{batch, longest, kHeads, kDim, c.padded ? nullptr : offsets.data()};
  std::vector<float> probs(static_cast<std::size_t>(attention_probs_floats(shape)));
  std::vector<T> out(static_cast<std::size_t>(rows * kHidden)), dx(x.size());
  const float* m = c.padded ? mask.data() : nullptr;
  disentangled_attention_forward(out.data(), probs.data(), x.data(), m, shape, tables, {}, nullptr);
  disentangled_attention_backward(dx.data(), dy.data(), x.data(), probs.data(), m, shape, tables, {},
                                  nullptr);
  auto packed = [&](const std::vector<T>& v, std::int64_t width) {
    std::vector<float> p(static_cast<std::size_t>(n * width));
    for (std::int64_t t = 0; t < n; ++t)
      for (std::int64_t e = 0; e < width; ++e)
        p[static_cast<std::size_t>(t * width + e)] = value(v[static_cast<std::size_t>(place(t) * width + e)]);
    return p;
  };
  r.out = packed(out, kHidden);
  r.dqkv = packed(dx, 3 * kHidden);
  return r;
}

void expect_close(const std::vector<float>& got, const naive::Vec& want, double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol * std::max(scale, 1e-3)) << what << "[" << i << "]";
  }
}

template <typename T>
void check(const Case& c, double tol) {
  const std::int64_t n = std::accumulate(c.lengths.begin(), c.lengths.end(), std::int64_t{0});
  const std::int64_t table = c.positions.table_rows() * kHidden;
  const naive::Vec qkv = naive::random_vec(static_cast<std::size_t>(n * 3 * kHidden), 11, 0.7);
  const naive::Vec kr = naive::random_vec(static_cast<std::size_t>(table), 12, 0.7);
  const naive::Vec qr = naive::random_vec(static_cast<std::size_t>(table), 13, 0.7);
  const naive::Vec dout = naive::random_vec(static_cast<std::size_t>(n * kHidden), 14);
  const Result r = run_kernel<T>(qkv, kr, qr, dout, c);
  expect_close(r.out, naive_forward(qkv, kr, qr, c), tol, "out");
  auto loss = [&](const naive::Vec& a, const naive::Vec& b, const naive::Vec& cc) {
    return naive::dot(naive_forward(a, b, cc, c), dout);
  };
  expect_close(r.dqkv, naive::numeric_grad(qkv, [&](const naive::Vec& v) { return loss(v, kr, qr); }), tol,
               "dqkv");
  if (c.c2p)
    expect_close(r.dkr, naive::numeric_grad(kr, [&](const naive::Vec& v) { return loss(qkv, v, qr); }), tol,
                 "dKr");
  if (c.p2c)
    expect_close(r.dqr, naive::numeric_grad(qr, [&](const naive::Vec& v) { return loss(qkv, kr, v); }), tol,
                 "dQr");
}

// Sequences longer than the buckets (log positions) and than the span (clamped rows), a
// sequence of one token, both layouts.
TEST(DisentangledAttention, MatchesPerPairLoopPacked) { check<float>({{13, 1, 6}, {4, 10}}, 2e-5); }
TEST(DisentangledAttention, MatchesPerPairLoopPadded) {
  check<float>({{13, 1, 6}, {4, 10}, true, true, true}, 2e-5);
}
TEST(DisentangledAttention, ContentToPositionOnly) { check<float>({{9, 12}, {-1, 5}, true, false}, 2e-5); }
TEST(DisentangledAttention, PositionToContentOnly) { check<float>({{9, 12}, {-1, 5}, false, true}, 2e-5); }

TEST(DisentangledAttention, Bf16WithinRounding) { check<bf16>({{13, 1, 6}, {4, 10}}, 3e-2); }

// Each head's table gradient is summed by one thread over the sequences in order: the same
// bits on 1 thread and on all of them.
TEST(DisentangledAttention, TableGradientsDoNotDependOnThreads) {
  const Case c{{17, 5, 30, 2, 11}, {8, 40}};
  const std::int64_t n = 65;
  const std::int64_t table = c.positions.table_rows() * kHidden;
  const naive::Vec qkv = naive::random_vec(static_cast<std::size_t>(n * 3 * kHidden), 21);
  const naive::Vec kr = naive::random_vec(static_cast<std::size_t>(table), 22);
  const naive::Vec qr = naive::random_vec(static_cast<std::size_t>(table), 23);
  const naive::Vec dout = naive::random_vec(static_cast<std::size_t>(n * kHidden), 24);
  set_compute_threads(1);
  const Result one = run_kernel<float>(qkv, kr, qr, dout, c);
  set_compute_threads(2);
  const Result all = run_kernel<float>(qkv, kr, qr, dout, c);
  EXPECT_EQ(one.dkr, all.dkr);
  EXPECT_EQ(one.dqr, all.dqr);
  EXPECT_EQ(one.dqkv, all.dqkv);
}

}  // namespace
}  // namespace disentangled_attention_test
}  // namespace shmtrain::tensor
