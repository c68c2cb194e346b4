#pragma once
// Internal to train: the result files Hugging Face's Trainer writes at the end of a run, in
// output_dir: train_results.json, eval_results.json, predict_results.json and all_results.json
// (the others merged, as Trainer.save_metrics merges each into it).
#include <cstdint>
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "shmtrain/train/evaluate.hpp"

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

// The predict step's metrics as the script saves them: the task's metrics, runtime,
// samples_per_second and steps_per_second with its prefix (predict_ or run_qa's test_), and
// run_qa's predict_samples. nullopt when the test rows were not scored (no labels, or GLUE).
std::optional<nlohmann::ordered_json> predict_results(const PredictResult& result);

// train: when the run trained; eval: the last evaluation record, when it evaluated; predict:
// predict_results' record, when the run scored its test rows.
void write_results_files(const std::filesystem::path& dir, const std::optional<TrainResults>& train,
                         const std::optional<nlohmann::ordered_json>& eval,
                         const std::optional<nlohmann::ordered_json>& predict);

}  // namespace shmtrain::train
