#pragma once
// Where a training run stands, saved as trainer_state.json in every checkpoint and in the
// final folder. The keys Hugging Face's TrainerState has (global_step, epoch, max_steps,
// log_history, ...) keep their meaning; what a resume needs beyond them is under "shmtrain".
// Nothing random needs saving: shuffling is a function of (seed, epoch) and dropout of
// (seed, rank, micro-step), so the data position and the step are the whole RNG state.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace shmtrain::train {

struct TrainerState {
  std::int64_t global_step = 0;     // optimizer steps done
  std::int64_t max_steps = 0;       // optimizer steps the run makes
  std::int64_t epoch_index = 0;     // the epoch the next micro-batch belongs to
  std::int64_t batches_done = 0;    // micro-batches of epoch_index already consumed
  std::int64_t batches_per_epoch = 0;
  double num_train_epochs = 0;
  std::uint64_t seed = 0;
  std::int64_t world_size = 1;
  std::int64_t global_batch_size = 0;  // per-device batch x workers x accumulation
  // The running sums of the logging window (steps since the last log), so a resume logs the
  // same values as an uninterrupted run even when save_steps is not a multiple of logging_steps.
  double window_loss_sum = 0;
  std::int64_t window_steps = 0;
  nlohmann::ordered_json log_history = nlohmann::ordered_json::array();
  // Trainer's best_metric and best_model_checkpoint (load_best_model_at_end, early stopping).
  std::optional<double> best_metric;
  std::string best_model_checkpoint;

  // Fractional epochs done, as HF logs "epoch".
  double epoch() const;

  nlohmann::ordered_json to_json() const;
  // Throws InputError naming `source` and the key when a needed key is missing or mistyped.
  static TrainerState from_json(const nlohmann::json& json, const std::string& source);
  static TrainerState read(const std::filesystem::path& path);
};

}  // namespace shmtrain::train
