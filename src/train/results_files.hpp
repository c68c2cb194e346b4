#pragma once
// Internal to train: the result files Hugging Face's Trainer writes at the end of a run, in
// output_dir: train_results.json, eval_results.json and all_results.json (the two merged).
#include <cstdint>
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

namespace shmtrain::train {

struct TrainResults {
  double epoch = 0;
  double train_loss = 0;
  double seconds = 0;
  std::int64_t train_rows = 0;     // train_samples: the rows of the training set
  std::int64_t samples_seen = 0;   // over the run, for samples per second
  std::int64_t steps_run = 0;
  std::int64_t total_steps = 0;
};

// train: when the run trained; eval: the last evaluation record, when it evaluated.
void write_results_files(const std::filesystem::path& dir, const std::optional<TrainResults>& train,
                         const std::optional<nlohmann::ordered_json>& eval);

}  // namespace shmtrain::train
