#pragma once
// Evaluation metrics with the definitions Hugging Face's run_glue.py reports through
// `evaluate` (scikit-learn and scipy underneath). Sizes of the two inputs must match (else
// throws Error); an empty input gives 0 for the classification metrics.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shmtrain::task {

// Fraction of predictions equal to the label.
double accuracy(std::span<const std::int32_t> predictions, std::span<const std::int32_t> labels);

// sklearn.metrics.f1_score, positive class 1: 2 TP / (2 TP + FP + FN); 0 when undefined
// (no positive label and no positive prediction), as sklearn's zero_division default.
double binary_f1(std::span<const std::int32_t> predictions, std::span<const std::int32_t> labels);

// sklearn.metrics.matthews_corrcoef, its multiclass formula over the confusion matrix C:
//   (c s - sum_k p_k t_k) / sqrt((s^2 - sum_k p_k^2) (s^2 - sum_k t_k^2))
// with c = trace(C), s = number of samples, t_k / p_k = how often class k is true / predicted;
// 0 when undefined (a denominator factor of 0: one class only, in labels or predictions).
double matthews_corrcoef(std::span<const std::int32_t> predictions, std::span<const std::int32_t> labels);

// scipy.stats.pearsonr's coefficient. NaN when undefined (fewer than 2 points or a constant
// input), as scipy.
double pearson(std::span<const double> x, std::span<const double> y);

// scipy.stats.spearmanr: Pearson of the ranks, tied values getting their average rank.
// NaN when undefined, as pearson.
double spearman(std::span<const double> x, std::span<const double> y);

// Mean squared error (evaluate's "mse"); 0 for empty inputs.
double mean_squared_error(std::span<const double> predictions, std::span<const double> targets);

struct Predictions {
  std::vector<std::int32_t> predicted, labels;  // classification (argmax of logits)
  std::vector<double> scores, targets;          // regression
};

// The metrics Hugging Face's run_glue.py reports for the task, in its order and names
// (without the "eval_" prefix):
// cola: matthews_correlation; stsb: pearson, spearmanr, combined_score (mean); mrpc, qqp:
// accuracy, f1, combined_score; other GLUE tasks: accuracy; custom data: accuracy (plus f1
// and combined_score when num_labels == 2), or mse for regression.
std::vector<std::pair<std::string, double>> task_metrics(std::string_view task_name, bool regression,
                                                         std::int64_t num_labels,
                                                         const Predictions& predictions);

}  // namespace shmtrain::task
