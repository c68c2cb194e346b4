#include "shmtrain/train/step_plan.hpp"

#include <algorithm>
#include <cmath>

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
  plan.warmup_steps = options.warmup_steps > 0
                          ? options.warmup_steps
                          : static_cast<std::int64_t>(
                                std::ceil(options.warmup_ratio * static_cast<double>(plan.total_steps)));
  plan.global_batch = options.per_device_train_batch_size * world * options.gradient_accumulation_steps;
  return plan;
}

}  // namespace shmtrain::train
