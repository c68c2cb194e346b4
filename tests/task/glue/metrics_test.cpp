// Metrics against values worked out by hand (and agreeing with sklearn / scipy).
#include "shmtrain/task/glue/metrics.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::task {
namespace {

using Labels = std::vector<std::int32_t>;
using Values = std::vector<double>;

TEST(TrainMetrics, AccuracyAndF1) {
  // TP = 2 (rows 0, 3), FP = 1 (row 1), FN = 1 (row 4), TN = 1 (row 2): accuracy 3/5,
  // F1 = 2*2 / (2*2 + 1 + 1) = 2/3.
  const Labels predicted = {1, 1, 0, 1, 0};
  const Labels labels = {1, 0, 0, 1, 1};
  EXPECT_DOUBLE_EQ(accuracy(predicted, labels), 0.6);
  EXPECT_DOUBLE_EQ(binary_f1(predicted, labels), 2.0 / 3.0);
  // No positive anywhere: F1 undefined, 0 as sklearn's zero_division default.
  EXPECT_EQ(binary_f1(Labels{0, 0}, Labels{0, 0}), 0.0);
  EXPECT_EQ(accuracy(Labels{}, Labels{}), 0.0);
  EXPECT_THROW(accuracy(Labels{1}, Labels{}), Error);
}

TEST(TrainMetrics, MatthewsBinaryMatchesTheTwoByTwoFormula) {
  // Same confusion as above: (TP TN - FP FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))
  // = (2*1 - 1*1) / sqrt(3*3*2*2) = 1/6.
  EXPECT_NEAR(matthews_corrcoef(Labels{1, 1, 0, 1, 0}, Labels{1, 0, 0, 1, 1}), 1.0 / 6.0, 1e-15);
  EXPECT_DOUBLE_EQ(matthews_corrcoef(Labels{0, 1, 1}, Labels{0, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(matthews_corrcoef(Labels{1, 0, 0}, Labels{0, 1, 1}), -1.0);
}

TEST(TrainMetrics, MatthewsMulticlass) {
  // labels    0 0 1 1 2 2, predicted 0 1 1 1 2 0:
  // t = (2, 2, 2), p = (2, 3, 1), c = 4, s = 6.
  // cov_ytyp = 4*6 - (4 + 6 + 2) = 12; cov_ypyp = 36 - (4 + 9 + 1) = 22; cov_ytyt = 36 - 12 = 24.
  // MCC = 12 / sqrt(22 * 24).
  EXPECT_NEAR(matthews_corrcoef(Labels{0, 1, 1, 1, 2, 0}, Labels{0, 0, 1, 1, 2, 2}),
              12.0 / std::sqrt(22.0 * 24.0), 1e-15);
}

TEST(TrainMetrics, MatthewsUndefinedIsZero) {
  EXPECT_EQ(matthews_corrcoef(Labels{1, 1, 1}, Labels{0, 1, 0}), 0.0);  // one class predicted
  EXPECT_EQ(matthews_corrcoef(Labels{0, 1, 0}, Labels{1, 1, 1}), 0.0);  // one class true
  EXPECT_EQ(matthews_corrcoef(Labels{}, Labels{}), 0.0);
}

TEST(TrainMetrics, Pearson) {
  // x = 1 2 3 4, y = 2 4 5 9: means 2.5, 5; dx = -1.5 -.5 .5 1.5, dy = -3 -1 0 4;
  // sxy = 4.5 + .5 + 0 + 6 = 11, sxx = 5, syy = 26: r = 11 / sqrt(130).
  EXPECT_NEAR(pearson(Values{1, 2, 3, 4}, Values{2, 4, 5, 9}), 11.0 / std::sqrt(130.0), 1e-15);
  EXPECT_DOUBLE_EQ(pearson(Values{1, 2, 3}, Values{-2, -4, -6}), -1.0);
  EXPECT_TRUE(std::isnan(pearson(Values{1, 1, 1}, Values{1, 2, 3})));  // constant input
  EXPECT_TRUE(std::isnan(pearson(Values{1}, Values{2})));
}

TEST(TrainMetrics, SpearmanAveragesTiedRanks) {
  // x = 10 20 20 30 -> ranks 1 2.5 2.5 4; y = 1 3 2 4 -> ranks 1 3 2 4.
  // Pearson of the ranks: means 2.5, 2.5; dx = -1.5 0 0 1.5, dy = -1.5 .5 -.5 1.5;
  // sxy = 2.25 + 0 + 0 + 2.25 = 4.5, sxx = 4.5, syy = 5: rho = 4.5 / sqrt(22.5) = 3 / sqrt(10).
  EXPECT_NEAR(spearman(Values{10, 20, 20, 30}, Values{1, 3, 2, 4}), 3.0 / std::sqrt(10.0), 1e-15);
  // Monotone but not linear: 1.
  EXPECT_DOUBLE_EQ(spearman(Values{1, 2, 3, 4}, Values{1, 8, 27, 64}), 1.0);
  EXPECT_TRUE(std::isnan(spearman(Values{5, 5}, Values{1, 2})));
}

TEST(TrainMetrics, MeanSquaredError) {
  EXPECT_DOUBLE_EQ(mean_squared_error(Values{1, 2, 4}, Values{1, 4, 1}), (0.0 + 4.0 + 9.0) / 3.0);
}

std::vector<std::string> names(const std::vector<std::pair<std::string, double>>& metrics) {
  std::vector<std::string> out;
  for (const auto& [name, value] : metrics) out.push_back(name);
  return out;
}

TEST(TrainMetrics, TaskMetricsFollowRunGlue) {
  Predictions p;
  p.predicted = {1, 1, 0, 1, 0};
  p.labels = {1, 0, 0, 1, 1};
  p.scores = {1, 2, 3, 4};
  p.targets = {2, 4, 5, 9};
  using Names = std::vector<std::string>;
  EXPECT_EQ(names(task_metrics("cola", false, 2, p)), (Names{"matthews_correlation"}));
  EXPECT_EQ(names(task_metrics("stsb", true, 1, p)), (Names{"pearson", "spearmanr", "combined_score"}));
  EXPECT_EQ(names(task_metrics("mrpc", false, 2, p)), (Names{"accuracy", "f1", "combined_score"}));
  EXPECT_EQ(names(task_metrics("qqp", false, 2, p)), (Names{"accuracy", "f1", "combined_score"}));
  EXPECT_EQ(names(task_metrics("mnli", false, 3, p)), (Names{"accuracy"}));
  EXPECT_EQ(names(task_metrics("sst2", false, 2, p)), (Names{"accuracy"}));
  EXPECT_EQ(names(task_metrics("", false, 2, p)), (Names{"accuracy", "f1", "combined_score"}));
  EXPECT_EQ(names(task_metrics("", false, 3, p)), (Names{"accuracy"}));
  EXPECT_EQ(names(task_metrics("", true, 1, p)), (Names{"mse"}));

  const auto mrpc = task_metrics("mrpc", false, 2, p);
  EXPECT_DOUBLE_EQ(mrpc[2].second, (0.6 + 2.0 / 3.0) / 2.0);
  const auto stsb = task_metrics("stsb", true, 1, p);
  EXPECT_NEAR(stsb[0].second, 11.0 / std::sqrt(130.0), 1e-15);
  EXPECT_DOUBLE_EQ(stsb[1].second, 1.0);  // scores and targets rise together
  EXPECT_NEAR(stsb[2].second, (11.0 / std::sqrt(130.0) + 1.0) / 2.0, 1e-15);
  const auto mse = task_metrics("", true, 1, p);
  EXPECT_DOUBLE_EQ(mse[0].second, (1.0 + 4.0 + 4.0 + 25.0) / 4.0);
}

}  // namespace
}  // namespace shmtrain::task
