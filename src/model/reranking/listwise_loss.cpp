#include "shmtrain/model/reranking/listwise_loss.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "shmtrain/common/error.hpp"

namespace shmtrain::model::reranking {
namespace {

constexpr LambdaWeighting kWeightings[] = {LambdaWeighting::kNone, LambdaWeighting::kNdcgLoss1,
                                           LambdaWeighting::kNdcgLoss2, LambdaWeighting::kLambdaRank,
                                           LambdaWeighting::kNdcgLoss2PP};

// The pairs a scheme takes: (i, j) with label_i > label_j, or every pair for NDCGLoss1 (whose
// mask keeps only the finite label differences: all of a list's).
bool counts(LambdaWeighting weighting, double label_i, double label_j) {
  return weighting == LambdaWeighting::kNdcgLoss1 || label_i - label_j > 0;
}

// One list's LambdaLoss sum and its gradient (into d, n entries, in the list's own order).
double lambda_list(const float* s, const float* y, std::int64_t n, const LambdaLossOptions& o, float* d) {
  // Candidates by score, best first; equal scores keep their order (a stable sort).
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return s[a] > s[b]; });
  std::vector<double> ideal(y, y + n);  // the labels sorted, best first: maxDCG's order
  std::sort(ideal.begin(), ideal.end(), std::greater<>());
  std::vector<double> discount(static_cast<std::size_t>(n));  // log2(1 + position), positions from 1
  for (std::int64_t i = 0; i < n; ++i) discount[i] = std::log2(2.0 + static_cast<double>(i));
  double max_dcg = 0;
  for (std::int64_t i = 0; i < n; ++i) max_dcg += (std::exp2(std::max(ideal[i], 0.0)) - 1.0) / discount[i];
  max_dcg = std::max(max_dcg, o.eps);
  std::vector<double> label(static_cast<std::size_t>(n)), gain(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    label[i] = y[order[i]];
    gain[i] = (std::exp2(std::max(label[i], 0.0)) - 1.0) / max_dcg;
  }
  const auto weight = [&](std::int64_t i, std::int64_t j) {
    const double gains = std::abs(gain[i] - gain[j]);
    const auto ndcg2 = [&] {
      if (i == j) return 0.0;
      const std::int64_t delta = std::abs(i - j);
      return std::abs(1.0 / discount[delta - 1] - 1.0 / discount[delta]) * gains;
    };
    const auto lambda_rank = [&] { return std::abs(1.0 / discount[i] - 1.0 / discount[j]) * gains; };
    switch (o.weighting) {
      case LambdaWeighting::kNone:
        return 1.0;
      case LambdaWeighting::kNdcgLoss1:
        return gain[i] / discount[i];
      case LambdaWeighting::kNdcgLoss2:
        return ndcg2();
      case LambdaWeighting::kLambdaRank:
        return lambda_rank();
      case LambdaWeighting::kNdcgLoss2PP:
        return o.mu * ndcg2() + lambda_rank();
    }
    return 1.0;
  };
  const double log_base = o.binary_log ? std::log(2.0) : 1.0;
  std::vector<double> dsorted(static_cast<std::size_t>(n), 0.0);
  double sum = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      if (!counts(o.weighting, label[i], label[j])) continue;
      const double w = weight(i, j);
      const double raw = static_cast<double>(s[order[i]]) - static_cast<double>(s[order[j]]);
      const double diff = std::clamp(raw, -1e8, 1e8);
      const double sig = 1.0 / (1.0 + std::exp(-o.sigma * diff));
      const double floored = std::max(sig, o.eps);
      const double powered = std::pow(floored, w);
      sum -= std::log(std::max(powered, o.eps)) / log_base;
      // The clamps pass a gradient only where their input is inside them.
      if (powered < o.eps || sig < o.eps || raw < -1e8 || raw > 1e8 || w == 0.0) continue;
      // d(-log(p^w))/d(diff) = -w sigma (1 - sig) (the sigmoid's derivative over sig).
      const double g = -w * o.sigma * (1.0 - sig) / log_base;
      dsorted[i] += g;
      dsorted[j] -= g;
    }
  }
  if (d != nullptr) {
    for (std::int64_t i = 0; i < n; ++i) d[order[i]] = static_cast<float>(dsorted[i]);
  }
  return sum;
}

}  // namespace

const char* lambda_weighting_name(LambdaWeighting weighting) {
  switch (weighting) {
    case LambdaWeighting::kNone:
      return "none";
    case LambdaWeighting::kNdcgLoss1:
      return "ndcg_loss1";
    case LambdaWeighting::kNdcgLoss2:
      return "ndcg_loss2";
    case LambdaWeighting::kLambdaRank:
      return "lambda_rank";
    case LambdaWeighting::kNdcgLoss2PP:
      return "ndcg_loss2pp";
  }
  return "ndcg_loss2pp";
}

LambdaWeighting parse_lambda_weighting(const std::string& value, const std::string& key) {
  for (const LambdaWeighting w : kWeightings) {
    if (value == lambda_weighting_name(w)) return w;
  }
  fail_input("{} '{}': LambdaLoss's weighting schemes are ndcg_loss2pp (the default), ndcg_loss2, lambda_rank, "
             "ndcg_loss1 and none",
             key, value);
}

double lambda_loss_sum(std::span<const float> scores, std::span<const float> labels,
                       std::span<const std::int32_t> lengths, const LambdaLossOptions& options, float* dscores) {
  double sum = 0;
  std::size_t first = 0;
  for (const std::int32_t n : lengths) {
    sum += lambda_list(scores.data() + first, labels.data() + first, n, options,
                       dscores == nullptr ? nullptr : dscores + first);
    first += static_cast<std::size_t>(n);
  }
  return sum;
}

std::int64_t lambda_pair_count(std::span<const float> labels, std::span<const std::int32_t> lengths,
                               LambdaWeighting weighting) {
  std::int64_t pairs = 0;
  std::size_t first = 0;
  for (const std::int32_t n : lengths) {
    for (std::int32_t i = 0; i < n; ++i) {
      for (std::int32_t j = 0; j < n; ++j) pairs += counts(weighting, labels[first + i], labels[first + j]) ? 1 : 0;
    }
    first += static_cast<std::size_t>(n);
  }
  return pairs;
}

double listnet_loss_sum(std::span<const float> scores, std::span<const float> labels,
                        std::span<const std::int32_t> lengths, float* dscores) {
  double sum = 0;
  std::size_t first = 0;
  for (const std::int32_t n : lengths) {
    const float* s = scores.data() + first;
    const float* y = labels.data() + first;
    const double s_max = *std::max_element(s, s + n);
    const double y_max = *std::max_element(y, y + n);
    double s_total = 0, y_total = 0;
    for (std::int32_t j = 0; j < n; ++j) {
      s_total += std::exp(s[j] - s_max);
      y_total += std::exp(y[j] - y_max);
    }
    const double log_s_total = std::log(s_total);
    for (std::int32_t j = 0; j < n; ++j) {
      const double target = std::exp(y[j] - y_max) / y_total;
      const double log_p = s[j] - s_max - log_s_total;
      sum -= target * log_p;
      if (dscores != nullptr) dscores[first + j] = static_cast<float>(std::exp(log_p) - target);
    }
    first += static_cast<std::size_t>(n);
  }
  return sum;
}

double multiple_negatives_loss_sum(std::span<const float> scores, std::span<const std::int32_t> lengths, double scale,
                                   float* dscores) {
  double sum = 0;
  std::size_t first = 0;
  std::vector<double> sig, z;
  for (const std::int32_t n : lengths) {
    sig.assign(static_cast<std::size_t>(n), 0.0);
    z.assign(static_cast<std::size_t>(n), 0.0);
    double z_max = -1e300;
    for (std::int32_t j = 0; j < n; ++j) {
      sig[j] = 1.0 / (1.0 + std::exp(-static_cast<double>(scores[first + j])));
      z[j] = scale * sig[j];
      z_max = std::max(z_max, z[j]);
    }
    double total = 0;
    for (std::int32_t j = 0; j < n; ++j) total += std::exp(z[j] - z_max);
    sum += z_max + std::log(total) - z[0];
    if (dscores != nullptr) {
      for (std::int32_t j = 0; j < n; ++j) {
        const double p = std::exp(z[j] - z_max) / total - (j == 0 ? 1.0 : 0.0);
        dscores[first + j] = static_cast<float>(p * scale * sig[j] * (1.0 - sig[j]));
      }
    }
    first += static_cast<std::size_t>(n);
  }
  return sum;
}

}  // namespace shmtrain::model::reranking
