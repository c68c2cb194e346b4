#pragma once
// How the training rows divide into micro-batches and optimizer steps, as Hugging Face's
// Trainer counts them: each worker takes DistributedSampler's padded share of the rows, an
// epoch is ceil(share / batch) micro-batches and ceil(micro-batches / accumulation) steps, and
// max_steps (when > 0) or num_train_epochs decides the total.
#include <cstdint>

#include "shmtrain/train/train_options.hpp"

namespace shmtrain::train {

struct StepPlan {
  std::int64_t rows_per_worker = 0;  // DistributedSampler's padded share
  std::int64_t batches_per_epoch = 0;
  std::int64_t steps_per_epoch = 0;
  std::int64_t total_steps = 0;
  std::int64_t warmup_steps = 0;  // warmup_steps, else ceil(warmup_ratio * total_steps)
  std::int64_t global_batch = 0;  // per-device batch x workers x accumulation
  // Every how many steps the run logs, evaluates and saves: the options' steps, or
  // ceil(total_steps x ratio) for a ratio (as Trainer resolves logging_steps < 1); 0: never.
  std::int64_t logging_steps = 0;
  std::int64_t eval_steps = 0;
  std::int64_t save_steps = 0;
};

// REQUIRES: rows >= 1 and world >= 1.
// Throws InputError when load_best_model_at_end's checkpoints, given as ratios, do not fall
// where its evaluations are.
StepPlan plan_steps(const TrainOptions& options, std::int64_t rows, int world);

}  // namespace shmtrain::train
