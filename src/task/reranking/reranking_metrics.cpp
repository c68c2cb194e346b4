#include "shmtrain/task/reranking/reranking_metrics.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::task::reranking {
namespace {

// sklearn's _dcg_sample_scores for one query: discounts 1 / log2(rank + 2) up to k; with ties
// (not ignored) each group of equal scores shares the mean gain of its members over the
// discounts of the places it spans.
double dcg(std::span<const double> gains, std::span<const double> scores, std::int64_t k, bool ignore_ties) {
  const std::size_t n = gains.size();
  std::vector<double> discount(n, 0.0);
  for (std::size_t i = 0; i < n && static_cast<std::int64_t>(i) < k; ++i) discount[i] = 1.0 / std::log2(static_cast<double>(i) + 2.0);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (ignore_ties) {  // np.argsort(y_score)[:, ::-1]: the ideal ordering of the gains themselves
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
    std::reverse(order.begin(), order.end());
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += gains[order[i]] * discount[i];
    return sum;
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  double sum = 0;
  for (std::size_t first = 0; first < n;) {
    std::size_t last = first;
    double gain = 0;
    while (last < n && scores[order[last]] == scores[order[first]]) gain += gains[order[last++]];
    double span = 0;
    for (std::size_t i = first; i < last; ++i) span += discount[i];
    sum += gain / static_cast<double>(last - first) * span;
    first = last;
  }
  return sum;
}

}  // namespace

QueryFigures rerank_figures(std::span<const std::uint8_t> relevant, std::span<const double> scores, std::int64_t at_k) {
  if (relevant.size() != scores.size() || at_k < 1) {
    throw Error(fmt::format("rerank_figures: {} relevances, {} scores, at_k {}", relevant.size(), scores.size(), at_k));
  }
  QueryFigures out;
  const std::size_t n = scores.size();
  // MRR: np.argsort ascending (stable for these lengths), reversed.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  std::reverse(order.begin(), order.end());
  for (std::size_t r = 0; r < n && static_cast<std::int64_t>(r) < at_k; ++r) {
    if (relevant[order[r]] != 0) {
      out.mrr = 1.0 / static_cast<double>(r + 1);
      break;
    }
  }
  std::vector<double> gains(relevant.begin(), relevant.end());
  const double ideal = dcg(gains, gains, at_k, true);
  out.ndcg = ideal > 0 ? dcg(gains, scores, at_k, false) / ideal : 0.0;
  // AP: thresholds at the distinct scores, highest first.
  std::vector<std::size_t> desc(n);
  std::iota(desc.begin(), desc.end(), std::size_t{0});
  std::stable_sort(desc.begin(), desc.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  const double positives = static_cast<double>(std::count_if(relevant.begin(), relevant.end(), [](std::uint8_t r) { return r != 0; }));
  double tp = 0, fp = 0, recall_before = 0;
  for (std::size_t first = 0; first < n && positives > 0;) {
    std::size_t last = first;
    while (last < n && scores[desc[last]] == scores[desc[first]]) {
      (relevant[desc[last]] != 0 ? tp : fp) += 1;
      ++last;
    }
    const double recall = tp / positives;
    out.ap += (recall - recall_before) * (tp / (tp + fp));
    recall_before = recall;
    first = last;
  }
  return out;
}

F1Scores f1_scores(std::span<const std::int32_t> truth, std::span<const std::int32_t> predicted) {
  std::map<std::int32_t, std::array<std::int64_t, 3>> counts;  // class -> true positives, false positives, support
  std::int64_t correct = 0;
  for (std::size_t i = 0; i < truth.size(); ++i) {
    auto& t = counts[truth[i]];
    auto& p = counts[predicted[i]];
    ++t[2];
    if (truth[i] == predicted[i]) {
      ++t[0];
      ++correct;
    } else {
      ++p[1];
    }
  }
  F1Scores out;
  if (truth.empty()) return out;
  double weighted_support = 0;
  for (const auto& [label, c] : counts) {
    const std::int64_t false_negatives = c[2] - c[0];
    const double denominator = static_cast<double>(2 * c[0] + c[1] + false_negatives);
    const double f1 = c[0] == 0 ? 0.0 : 2.0 * static_cast<double>(c[0]) / denominator;
    out.macro += f1;
    out.weighted += f1 * static_cast<double>(c[2]);
    weighted_support += static_cast<double>(c[2]);
  }
  out.macro /= static_cast<double>(counts.size());
  out.weighted /= weighted_support;
  out.micro = static_cast<double>(correct) / static_cast<double>(truth.size());  // single-label: accuracy
  return out;
}

}  // namespace shmtrain::task::reranking
