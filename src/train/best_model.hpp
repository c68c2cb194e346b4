#pragma once
// Internal to train: Trainer's best-model bookkeeping and EarlyStoppingCallback. Every
// evaluation during training is observed: its metric_for_best_model (without "eval_"; by
// default the loss where the task computes one, as Trainer, else F1, else the task's first
// metric) decides whether it is the best so far (greater_is_better;
// default true, false for a metric ending in "loss"), and a checkpoint saved at that step
// becomes the best checkpoint, which rotation keeps and load_best_model_at_end loads at the
// end. With early_stopping_patience N, training stops after N evaluations in a row that did
// not beat the best by more than early_stopping_threshold.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "shmtrain/train/train_options.hpp"

namespace shmtrain::train {

class BestModel {
 public:
  explicit BestModel(const TrainOptions& options);

  // An evaluation record ("eval_f1": ...). Returns true when training should stop. Throws
  // InputError when the record lacks the metric, naming the ones it has.
  bool observe(const nlohmann::ordered_json& record, std::int64_t step);
  // A checkpoint was saved at `step`.
  void saved(std::int64_t step, const std::filesystem::path& checkpoint);
  // Whether the evaluation at `step` is the best so far (its checkpoint becomes the best).
  bool is_best_step(std::int64_t step) const { return step == best_step_; }
  // A resumed run's best so far (trainer_state.json's best_metric and best_model_checkpoint).
  void restore(std::optional<double> metric, const std::string& checkpoint);

  const std::optional<std::filesystem::path>& best_checkpoint() const { return best_checkpoint_; }
  std::optional<double> best_metric() const { return best_; }
  const std::string& metric() const { return metric_; }

 private:
  std::string metric_;  // resolved at the first evaluation when not given
  std::optional<bool> greater_;
  double threshold_;
  std::int64_t patience_;
  std::optional<double> best_;
  std::int64_t best_step_ = -1;
  std::int64_t without_improvement_ = 0;
  std::optional<std::filesystem::path> best_checkpoint_;
};

}  // namespace shmtrain::train
