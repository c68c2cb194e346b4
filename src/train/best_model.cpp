#include "best_model.hpp"

#include <cmath>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::train {

BestModel::BestModel(const TrainOptions& options)
    : metric_(options.metric_for_best_model),
      greater_(options.greater_is_better),
      threshold_(options.early_stopping_threshold),
      patience_(options.early_stopping_patience) {
  if (metric_.starts_with("eval_")) metric_ = metric_.substr(5);
}

bool BestModel::observe(const nlohmann::ordered_json& record, std::int64_t step) {
  if (metric_.empty()) {  // Trainer's default, the loss, where the task computes one; else F1; else its first
    for (const char* preferred : {"eval_loss", "eval_f1"}) {
      if (metric_.empty() && record.contains(preferred)) metric_ = std::string(preferred).substr(5);
    }
    for (const auto& [key, value] : record.items()) {
      if (metric_.empty() && key.starts_with("eval_") && value.is_number()) metric_ = key.substr(5);
    }
  }
  const auto it = record.find("eval_" + metric_);
  if (it == record.end() || !it->is_number()) {
    std::string names;
    for (const auto& [key, value] : record.items()) {
      if (key.starts_with("eval_")) names += (names.empty() ? "" : ", ") + key.substr(5);
    }
    fail_input("metric_for_best_model '{}' is not among the evaluation's metrics ({})", metric_, names);
  }
  const double value = it->get<double>();
  const bool greater = greater_.value_or(!metric_.ends_with("loss"));
  const auto better = [&](double a, double b) { return greater ? a > b : a < b; };
  // EarlyStoppingCallback: an improvement beats the best by more than the threshold.
  if (!best_ || (better(value, *best_) && std::abs(value - *best_) > threshold_)) {
    without_improvement_ = 0;
  } else {
    ++without_improvement_;
  }
  // Trainer's best metric: any improvement.
  if (!best_ || better(value, *best_)) {
    best_ = value;
    best_step_ = step;
  }
  return patience_ > 0 && without_improvement_ >= patience_;
}

void BestModel::restore(std::optional<double> metric, const std::string& checkpoint) {
  best_ = metric;
  if (!checkpoint.empty()) best_checkpoint_ = checkpoint;
}

void BestModel::saved(std::int64_t step, const std::filesystem::path& checkpoint) {
  if (step == best_step_) best_checkpoint_ = checkpoint;
}

}  // namespace shmtrain::train
