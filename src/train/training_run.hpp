#pragma once
// Internal to train: one worker's run from its first step to its result files (trainer.hpp
// states the loop and its semantics).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "batch_rows.hpp"
#include "best_model.hpp"
#include "row_exchange.hpp"
#include "shmtrain/io/metrics_log.hpp"
#include "shmtrain/report/tensorboard.hpp"
#include "shmtrain/train/evaluate.hpp"
#include "shmtrain/train/machine_rate.hpp"
#include "shmtrain/train/progress.hpp"
#include "shmtrain/train/step_engine.hpp"
#include "shmtrain/train/step_plan.hpp"
#include "shmtrain/train/trainer.hpp"
#include "shmtrain/train/trainer_state.hpp"
#include "step_profile.hpp"

namespace shmtrain::train {

// Seconds from start to now (the step profile's and the log's timings).
double seconds_since(std::chrono::steady_clock::time_point start);

class TrainingRun {
 public:
  TrainingRun(const TrainOptions& options, const std::string& options_toml, const PreparedRun& prepared,
              comm::Communicator& comm, std::FILE* out);

  TrainSummary execute();

 private:
  using Clock = std::chrono::steady_clock;

  // Rank 0's console: a line printed above the live progress line when there is one.
  void print_line(const std::string& line);
  // A micro-batch's tokens on average: the batch size x the training rows' mean length.
  std::int64_t micro_batch_tokens() const;
  // Loads the model folder's weights or initialises them; says which.
  const char* load_or_init_weights();
  // Resumes from the checkpoint, or starts the trainer state of a fresh run.
  void start_or_resume(const StepPlan& plan);
  void train(const StepPlan& plan, TrainSummary& summary);
  StepResult train_step(const StepPlan& plan, float lr);
  void log_step(const StepPlan& plan, double loss, double grad_norm, double lr, bool epoch_end);
  // Evaluations and checkpoints due after a step; returns true when early stopping ends training.
  bool after_step(const StepPlan& plan, bool epoch_end);
  void load_best_model();
  EvalSettings eval_settings() const;
  nlohmann::ordered_json run_evaluation(std::int64_t step, double epoch);
  // MNLI's mismatched set after training: its metrics join `record` with run_glue's "_mm" suffix.
  void add_mismatched_evaluation(nlohmann::ordered_json& record);
  // Appends an evaluation record to the log history and metrics.jsonl, and prints it.
  void record_evaluation(const nlohmann::ordered_json& record, std::int64_t total_steps);
  // Rank 0: a log or evaluation record into trainer_state's history, metrics.jsonl and, with
  // --report_to tensorboard, the event file.
  void publish(const nlohmann::ordered_json& record);
  // Rank 0, unless --report_to none: output_dir/report.html of the run so far (report/).
  void write_report();
  void save();
  void write_final_files(const StepPlan& plan, const TrainSummary& summary,
                         const std::optional<nlohmann::ordered_json>& eval,
                         const std::optional<nlohmann::ordered_json>& predicted);

  const TrainOptions& options_;
  const std::string& options_toml_;
  const PreparedRun& prepared_;
  const RunInputs& inputs_;
  const std::filesystem::path& resume_;
  const std::vector<std::string>& notes_;
  bool bf16_;
  comm::Communicator& comm_;
  std::FILE* out_;
  bool leader_;

  model::ParamTable table_;
  StepEngine engine_;
  // gather_across_devices: the sentence-embedding head's way to every worker's candidates.
  std::unique_ptr<CommRowExchange> row_exchange_;
  TrainerState state_;
  std::optional<io::MetricsLog> metrics_;
  std::optional<report::TensorBoardWriter> tensorboard_;
  std::optional<ProgressDisplay> progress_;

  nlohmann::ordered_json run_info_;  // rank 0's run_info.json (run_info.hpp)
  std::optional<MachineRate> machine_rate_;  // measured when training starts
  std::optional<BatchRows> rows_;  // over the training set
  BestModel best_;
  StepProfile profile_;
  Clock::time_point window_start_;
  std::int64_t window_samples_ = 0;
  std::int64_t samples_ = 0;
  double loss_sum_ = 0;
  std::int64_t steps_run_ = 0;
};

}  // namespace shmtrain::train
