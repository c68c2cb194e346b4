#pragma once
// Naive double-precision references of the tensor kernels, written as the textbook loops,
// and central finite differences over them. Kernels are checked forward against these and
// backward against the finite-difference gradient of sum(dout * forward(x)).
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

#include "shmtrain/tensor/gemm.hpp"

namespace shmtrain::naive {

using Vec = std::vector<double>;

inline Vec random_vec(std::size_t n, std::uint32_t seed, double scale = 1.0) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> dist(0.0, scale);
  Vec v(n);
  for (double& x : v) x = dist(rng);
  return v;
}

// C = alpha op(A) op(B) + beta C (+ bias on every row), row-major.
inline Vec gemm(tensor::Trans ta, tensor::Trans tb, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
                const Vec& a, const Vec& b, double beta, const Vec& c, const Vec* bias = nullptr) {
  Vec out(static_cast<std::size_t>(m * n));
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t l = 0; l < k; ++l) {
        const double av = ta == tensor::Trans::kNo ? a[i * k + l] : a[l * m + i];
        const double bv = tb == tensor::Trans::kNo ? b[l * n + j] : b[j * k + l];
        s += av * bv;
      }
      out[i * n + j] = alpha * s + beta * c[i * n + j] + (bias != nullptr ? (*bias)[j] : 0.0);
    }
  }
  return out;
}

inline std::vector<float> to_float(const Vec& v) { return {v.begin(), v.end()}; }
inline Vec to_double(const std::vector<float>& v) { return {v.begin(), v.end()}; }

// d/dx_i of f(x) by central differences, step h.
inline Vec numeric_grad(const Vec& x, const std::function<double(const Vec&)>& f, double h = 1e-6) {
  Vec g(x.size());
  Vec xp = x;
  for (std::size_t i = 0; i < x.size(); ++i) {
    xp[i] = x[i] + h;
    const double up = f(xp);
    xp[i] = x[i] - h;
    const double down = f(xp);
    xp[i] = x[i];
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

inline double dot(const Vec& a, const Vec& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

// out (N, OC) = inp (N, IC) W^T + b
inline Vec linear(const Vec& inp, const Vec& w, const Vec& b, std::int64_t n, std::int64_t ic, std::int64_t oc) {
  Vec out(static_cast<std::size_t>(n * oc));
  for (std::int64_t r = 0; r < n; ++r)
    for (std::int64_t o = 0; o < oc; ++o) {
      double s = b.empty() ? 0.0 : b[o];
      for (std::int64_t i = 0; i < ic; ++i) s += inp[r * ic + i] * w[o * ic + i];
      out[r * oc + o] = s;
    }
  return out;
}

inline Vec layernorm(const Vec& x, const Vec& w, const Vec& b, std::int64_t n, std::int64_t c, double eps) {
  Vec out(x.size());
  for (std::int64_t r = 0; r < n; ++r) {
    double m = 0, v = 0;
    for (std::int64_t i = 0; i < c; ++i) m += x[r * c + i];
    m /= c;
    for (std::int64_t i = 0; i < c; ++i) v += (x[r * c + i] - m) * (x[r * c + i] - m);
    v /= c;
    for (std::int64_t i = 0; i < c; ++i) out[r * c + i] = (x[r * c + i] - m) / std::sqrt(v + eps) * w[i] + b[i];
  }
  return out;
}

inline Vec gelu(const Vec& x) {
  Vec out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = 0.5 * x[i] * (1 + std::erf(x[i] / std::sqrt(2.0)));
  return out;
}

// With float32's lowest value as the mask, float arithmetic absorbs the scores of a row whose
// keys are all masked and gives a uniform row; double would not, so that case is written out.
inline Vec softmax_rows(const Vec& s, const Vec& mask, std::int64_t rows, std::int64_t cols) {
  Vec out(s.size());
  bool all_masked = !mask.empty();
  for (double m : mask) all_masked = all_masked && m < -1e38;
  for (std::int64_t r = 0; r < rows; ++r) {
    if (all_masked) {
      for (std::int64_t c = 0; c < cols; ++c) out[r * cols + c] = 1.0 / static_cast<double>(cols);
      continue;
    }
    double mx = -INFINITY;
    for (std::int64_t c = 0; c < cols; ++c) mx = std::max(mx, s[r * cols + c] + (mask.empty() ? 0 : mask[c]));
    double sum = 0;
    for (std::int64_t c = 0; c < cols; ++c)
      sum += out[r * cols + c] = std::exp(s[r * cols + c] + (mask.empty() ? 0 : mask[c]) - mx);
    for (std::int64_t c = 0; c < cols; ++c) out[r * cols + c] /= sum;
  }
  return out;
}

// qkv (B, T, 3H), mask (B, T) -> out (B, T, H); no dropout.
inline Vec attention(const Vec& qkv, const Vec& mask, std::int64_t batch, std::int64_t seq, std::int64_t heads,
                     std::int64_t dim) {
  const std::int64_t hid = heads * dim;
  Vec out(static_cast<std::size_t>(batch * seq * hid), 0.0);
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t h = 0; h < heads; ++h) {
      Vec scores(static_cast<std::size_t>(seq * seq));
      for (std::int64_t i = 0; i < seq; ++i)
        for (std::int64_t j = 0; j < seq; ++j) {
          double s = 0;
          for (std::int64_t e = 0; e < dim; ++e)
            s += qkv[(b * seq + i) * 3 * hid + h * dim + e] * qkv[(b * seq + j) * 3 * hid + hid + h * dim + e];
          scores[i * seq + j] = s / std::sqrt(static_cast<double>(dim));
        }
      const Vec m(mask.begin() + b * seq, mask.begin() + (b + 1) * seq);
      const Vec p = softmax_rows(scores, m, seq, seq);
      for (std::int64_t i = 0; i < seq; ++i)
        for (std::int64_t e = 0; e < dim; ++e) {
          double s = 0;
          for (std::int64_t j = 0; j < seq; ++j) s += p[i * seq + j] * qkv[(b * seq + j) * 3 * hid + 2 * hid + h * dim + e];
          out[(b * seq + i) * hid + h * dim + e] = s;
        }
    }
  return out;
}

}  // namespace shmtrain::naive
