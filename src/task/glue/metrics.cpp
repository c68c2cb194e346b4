#include "shmtrain/task/glue/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::task {
namespace {

template <typename A, typename B>
void check_sizes(const char* metric, std::span<A> a, std::span<B> b) {
  if (a.size() != b.size()) {
    throw Error(fmt::format("{}: {} predictions for {} labels", metric, a.size(), b.size()));
  }
}

// Ranks 1..n, tied values sharing the mean of the ranks they span (scipy.stats.rankdata "average").
std::vector<double> average_ranks(std::span<const double> x) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
  std::vector<double> ranks(x.size());
  for (std::size_t start = 0; start < order.size();) {
    std::size_t end = start + 1;
    while (end < order.size() && x[order[end]] == x[order[start]]) ++end;
    const double rank = 0.5 * static_cast<double>(start + 1 + end);  // mean of start+1 .. end
    for (std::size_t k = start; k < end; ++k) ranks[order[k]] = rank;
    start = end;
  }
  return ranks;
}

}  // namespace

double accuracy(std::span<const std::int32_t> predictions, std::span<const std::int32_t> labels) {
  check_sizes("accuracy", predictions, labels);
  if (labels.empty()) return 0.0;
  std::size_t correct = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) correct += predictions[i] == labels[i] ? 1 : 0;
  return static_cast<double>(correct) / static_cast<double>(labels.size());
}

double binary_f1(std::span<const std::int32_t> predictions, std::span<const std::int32_t> labels) {
  check_sizes("f1", predictions, labels);
  std::size_t tp = 0, fp = 0, fn = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const bool predicted = predictions[i] == 1;
    const bool actual = labels[i] == 1;
    tp += predicted && actual ? 1 : 0;
    fp += predicted && !actual ? 1 : 0;
    fn += !predicted && actual ? 1 : 0;
  }
  const std::size_t denominator = 2 * tp + fp + fn;
  return denominator == 0 ? 0.0 : 2.0 * static_cast<double>(tp) / static_cast<double>(denominator);
}

double matthews_corrcoef(std::span<const std::int32_t> predictions, std::span<const std::int32_t> labels) {
  check_sizes("matthews_corrcoef", predictions, labels);
  // t_k, p_k per class value; c = correct predictions; s = samples.
  std::map<std::int32_t, std::pair<double, double>> counts;  // class -> (t_k, p_k)
  double c = 0.0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    counts[labels[i]].first += 1.0;
    counts[predictions[i]].second += 1.0;
    c += predictions[i] == labels[i] ? 1.0 : 0.0;
  }
  const auto s = static_cast<double>(labels.size());
  double sum_tp = 0.0, sum_pp = 0.0, sum_tt = 0.0;
  for (const auto& [label, tp] : counts) {
    sum_tp += tp.first * tp.second;
    sum_pp += tp.second * tp.second;
    sum_tt += tp.first * tp.first;
  }
  const double cov_ytyp = c * s - sum_tp;
  const double cov_ypyp = s * s - sum_pp;
  const double cov_ytyt = s * s - sum_tt;
  if (cov_ypyp * cov_ytyt == 0.0) return 0.0;
  return cov_ytyp / std::sqrt(cov_ytyt * cov_ypyp);
}

double pearson(std::span<const double> x, std::span<const double> y) {
  check_sizes("pearson", x, y);
  const std::size_t n = x.size();
  if (n < 2) return std::numeric_limits<double>::quiet_NaN();
  const double mean_x = std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(n);
  const double mean_y = std::accumulate(y.begin(), y.end(), 0.0) / static_cast<double>(n);
  double sxy = 0.0, sxx = 0.0, syy = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double dx = x[i] - mean_x;
    const double dy = y[i] - mean_y;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx == 0.0 || syy == 0.0) return std::numeric_limits<double>::quiet_NaN();
  // Clamped as scipy does: rounding can carry |r| a hair past 1.
  return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

double spearman(std::span<const double> x, std::span<const double> y) {
  check_sizes("spearman", x, y);
  const std::vector<double> rank_x = average_ranks(x);
  const std::vector<double> rank_y = average_ranks(y);
  return pearson(rank_x, rank_y);
}

double mean_squared_error(std::span<const double> predictions, std::span<const double> targets) {
  check_sizes("mse", predictions, targets);
  if (targets.empty()) return 0.0;
  double sum = 0.0;
  for (std::size_t i = 0; i < targets.size(); ++i)
    sum += (predictions[i] - targets[i]) * (predictions[i] - targets[i]);
  return sum / static_cast<double>(targets.size());
}

std::vector<std::pair<std::string, double>> task_metrics(std::string_view task_name, bool regression,
                                                         std::int64_t num_labels, const Predictions& p) {
  std::vector<std::pair<std::string, double>> out;
  const auto with_f1 = [&] {
    const double acc = accuracy(p.predicted, p.labels);
    const double f1 = binary_f1(p.predicted, p.labels);
    out = {{"accuracy", acc}, {"f1", f1}, {"combined_score", (acc + f1) / 2.0}};
  };
  if (task_name == "cola") {
    out = {{"matthews_correlation", matthews_corrcoef(p.predicted, p.labels)}};
  } else if (task_name == "stsb") {
    const double r = pearson(p.scores, p.targets);
    const double rho = spearman(p.scores, p.targets);
    out = {{"pearson", r}, {"spearmanr", rho}, {"combined_score", (r + rho) / 2.0}};
  } else if (task_name == "mrpc" || task_name == "qqp") {
    with_f1();
  } else if (!task_name.empty()) {
    out = {{"accuracy", accuracy(p.predicted, p.labels)}};
  } else if (regression) {
    out = {{"mse", mean_squared_error(p.scores, p.targets)}};
  } else if (num_labels == 2) {
    with_f1();
  } else {
    out = {{"accuracy", accuracy(p.predicted, p.labels)}};
  }
  return out;
}

}  // namespace shmtrain::task
