#include "shmtrain/train/step_plan.hpp"

#include <algorithm>
#include <cmath>

#include "shmtrain/common/error.hpp"

namespace shmtrain::train {

StepPlan plan_steps(const TrainOptions& options, std::int64_t rows, int world) {
  StepPlan plan;
  plan.rows_per_worker = (rows + world - 1) / world;
  plan.batches_per_epoch =
      (plan.rows_per_worker + options.per_device_train_batch_size - 1) / options.per_device_train_batch_size;
  plan.steps_per_epoch =
      (plan.batches_per_epoch + options.gradient_accumulation_steps - 1) / options.gradient_accumulation_steps;
  plan.total_steps = options.max_steps > 0
                         ? options.max_steps
                         : static_cast<std::int64_t>(
                               std::ceil(options.num_train_epochs * static_cast<double>(plan.steps_per_epoch)));
  plan.total_steps = std::max<std::int64_t>(plan.total_steps, 1);
  // transformers 5's TrainingArguments.get_warmup_steps: int(warmup_steps) from 1 up, a fraction
  // of the steps below 1; 4.x's warmup_ratio when warmup_steps is 0.
  const auto of_total = [&](double ratio) {
    return static_cast<std::int64_t>(std::ceil(ratio * static_cast<double>(plan.total_steps)));
  };
  plan.warmup_steps = options.warmup_steps >= 1  ? static_cast<std::int64_t>(options.warmup_steps)
                      : options.warmup_steps > 0 ? of_total(options.warmup_steps)
                                                 : of_total(options.warmup_ratio);
  plan.global_batch = options.per_device_train_batch_size * world * options.gradient_accumulation_steps;
  const auto every = [&](std::int64_t steps, double ratio) {
    return ratio > 0 ? static_cast<std::int64_t>(std::ceil(static_cast<double>(plan.total_steps) * ratio)) : steps;
  };
  plan.logging_steps = every(options.logging_steps, options.logging_steps_ratio);
  plan.eval_steps = every(options.eval_steps, options.eval_steps_ratio);
  plan.save_steps = every(options.save_steps, options.save_steps_ratio);
  if (options.load_best_model_at_end && !options.eval_each_epoch &&
      (options.eval_steps_ratio > 0 || options.save_steps_ratio > 0) &&
      (plan.eval_steps == 0 || plan.save_steps == 0 || plan.save_steps % plan.eval_steps != 0)) {
    fail_input("load_best_model_at_end needs checkpoints where evaluations are: save_steps ({} of {} steps) must "
               "be a multiple of eval_steps ({})",
               plan.save_steps, plan.total_steps, plan.eval_steps);
  }
  return plan;
}

}  // namespace shmtrain::train
