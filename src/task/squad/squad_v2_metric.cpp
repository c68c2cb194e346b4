#include "shmtrain/task/squad/squad_v2_metric.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/task/squad/squad_metric.hpp"

namespace shmtrain::task {
namespace {

// make_eval_dict over the questions `ids` (indices into the score lists).
SquadV2Part part(const std::vector<double>& exact, const std::vector<double>& f1,
                 const std::vector<std::size_t>& ids) {
  double exact_sum = 0;
  double f1_sum = 0;
  for (const std::size_t i : ids) {
    exact_sum += exact[i];
    f1_sum += f1[i];
  }
  const auto total = static_cast<double>(ids.size());
  return {100.0 * exact_sum / total, 100.0 * f1_sum / total, ids.size()};
}

struct Best {
  double score;
  double thresh;
};

// find_best_thresh: `order` is the questions sorted by no-answer probability; `raw` the scores
// before any threshold.
Best best_threshold(std::span<const std::string> predictions, const std::vector<double>& raw,
                    const std::vector<bool>& has_answer, const std::vector<float>& na_probs,
                    const std::vector<std::size_t>& order) {
  double current = static_cast<double>(std::count(has_answer.begin(), has_answer.end(), false));
  Best best{current, 0.0};
  for (const std::size_t i : order) {
    if (has_answer[i]) {
      current += raw[i];
    } else if (!predictions[i].empty()) {
      current -= 1;
    }
    if (current > best.score) best = {current, static_cast<double>(na_probs[i])};
  }
  return {100.0 * best.score / static_cast<double>(raw.size()), best.thresh};
}

}  // namespace

double squad_v2_f1(std::string_view prediction, std::string_view truth) {
  if (normalize_squad_answer(prediction).empty() || normalize_squad_answer(truth).empty()) {
    return normalize_squad_answer(prediction).empty() && normalize_squad_answer(truth).empty() ? 1.0 : 0.0;
  }
  return squad_f1(prediction, truth);
}

SquadV2Scores squad_v2_scores(std::span<const std::string> predictions,
                              std::span<const std::vector<std::string>> golds,
                              std::span<const float> na_probs, double na_prob_thresh) {
  const std::size_t n = predictions.size();
  if (golds.size() != n || (!na_probs.empty() && na_probs.size() != n)) {
    throw Error(fmt::format("squad_v2_scores: {} predictions for {} questions and {} no-answer probabilities",
                            n, golds.size(), na_probs.size()));
  }
  SquadV2Scores scores;
  if (n == 0) return scores;
  const std::vector<float> probabilities =
      na_probs.empty() ? std::vector<float>(n, 0.0f) : std::vector<float>(na_probs.begin(), na_probs.end());
  std::vector<bool> has_answer(n);
  std::vector<double> exact_raw(n);
  std::vector<double> f1_raw(n);
  for (std::size_t i = 0; i < n; ++i) {
    has_answer[i] = !golds[i].empty();
    std::vector<std::string> gold;
    for (const std::string& answer : golds[i]) {
      if (!normalize_squad_answer(answer).empty()) gold.push_back(answer);
    }
    if (gold.empty()) gold.emplace_back();
    for (const std::string& answer : gold) {
      exact_raw[i] = std::max(exact_raw[i], squad_exact_match(predictions[i], answer) ? 1.0 : 0.0);
      f1_raw[i] = std::max(f1_raw[i], squad_v2_f1(predictions[i], answer));
    }
  }
  // apply_no_ans_threshold
  std::vector<double> exact = exact_raw;
  std::vector<double> f1 = f1_raw;
  for (std::size_t i = 0; i < n; ++i) {
    if (static_cast<double>(probabilities[i]) > na_prob_thresh) exact[i] = f1[i] = has_answer[i] ? 0.0 : 1.0;
  }
  std::vector<std::size_t> all(n);
  std::iota(all.begin(), all.end(), std::size_t{0});
  std::vector<std::size_t> with;
  std::vector<std::size_t> without;
  for (const std::size_t i : all) (has_answer[i] ? with : without).push_back(i);
  scores.all = part(exact, f1, all);
  if (!with.empty()) scores.has_ans = part(exact, f1, with);
  if (!without.empty()) scores.no_ans = part(exact, f1, without);

  std::vector<std::size_t> order = all;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return probabilities[a] < probabilities[b]; });
  const Best best_exact = best_threshold(predictions, exact_raw, has_answer, probabilities, order);
  const Best best_f1 = best_threshold(predictions, f1_raw, has_answer, probabilities, order);
  scores.best_exact = best_exact.score;
  scores.best_exact_thresh = best_exact.thresh;
  scores.best_f1 = best_f1.score;
  scores.best_f1_thresh = best_f1.thresh;
  return scores;
}

std::vector<std::pair<std::string, double>> squad_v2_named(const SquadV2Scores& scores) {
  std::vector<std::pair<std::string, double>> named = {
      {"exact", scores.all.exact}, {"f1", scores.all.f1}, {"total", static_cast<double>(scores.all.total)}};
  for (const auto& [prefix, part] :
       {std::pair{"HasAns", &scores.has_ans}, std::pair{"NoAns", &scores.no_ans}}) {
    if (!*part) continue;
    named.emplace_back(fmt::format("{}_exact", prefix), (*part)->exact);
    named.emplace_back(fmt::format("{}_f1", prefix), (*part)->f1);
    named.emplace_back(fmt::format("{}_total", prefix), static_cast<double>((*part)->total));
  }
  named.emplace_back("best_exact", scores.best_exact);
  named.emplace_back("best_exact_thresh", scores.best_exact_thresh);
  named.emplace_back("best_f1", scores.best_f1);
  named.emplace_back("best_f1_thresh", scores.best_f1_thresh);
  return named;
}

}  // namespace shmtrain::task
