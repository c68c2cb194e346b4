#pragma once
// `shmtrain report`: one HTML file that compares training runs from their output folders.
// The file stands alone: no script, no network, no other file (its Content-Security-Policy
// forbids every fetch), so it opens offline and mails as one attachment. Its charts are inline
// SVG written here, present without script so that printing shows them.
//
// What a run folder holds (each file optional; what is missing is skipped):
//   metrics.jsonl      one JSON object per line: training logs ("loss", "learning_rate",
//                      "grad_norm", "samples_per_second", "tokens_per_second", "gflops",
//                      "workers": each rank's seconds per step by phase) and evaluations
//                      (eval_* keys); when absent, trainer_state.json's log_history
//   run_info.json      version and build, model, task, data sizes, placement, the machine's
//                      GEMM rate, resolved options and their defaults
//   all_results.json   the final metrics (else eval_results.json and train_results.json)
//   config.json, shmtrain_config.toml   the model and options when run_info.json is absent
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace shmtrain::report {

// Where one worker's optimizer steps went over a logging window: seconds per step.
struct StepSplit {
  double forward = 0;
  double backward = 0;
  double exchange = 0;  // exposed: not hidden behind backward
  double optimizer = 0;
  double data = 0;  // assembling the step's batches
  double wait = 0;  // for the slowest worker
};

// One metrics.jsonl line.
struct LogRecord {
  std::int64_t step = 0;
  std::vector<std::pair<std::string, double>> values;  // every finite number but "step", in file order
  std::vector<StepSplit> workers;                      // rank order; empty when the line has none
  std::vector<double> worker_wait;                     // each rank's wait as a share of its step

  std::optional<double> value(std::string_view key) const;
  bool is_training() const;    // a training log: it has "loss"
  bool is_evaluation() const;  // it has an eval_* number
};

struct RunFolder {
  std::filesystem::path path;
  std::string name;                      // the folder's name, as the legend shows it
  std::vector<LogRecord> records;        // file order
  std::string records_source;            // "metrics.jsonl", "trainer_state.json" or "" (none)
  nlohmann::ordered_json run_info;       // object, or null
  nlohmann::ordered_json trainer_state;  // object, or null
  nlohmann::ordered_json results;        // the final metrics: object, or null
  nlohmann::ordered_json model_config;   // config.json: object, or null
  // shmtrain_config.toml's keys in file order, each value as text (strings unquoted).
  std::vector<std::pair<std::string, std::string>> config_options;
  std::vector<std::string> notes;  // what was skipped and why, for the page
};

// Reads what `folder` holds. Throws InputError when `folder` is not a folder, and
// "FILE:LINE: ..." when a line of metrics.jsonl other than the last is not a JSON object: the
// last line may be one the run is still writing (or was killed while writing), so an
// unreadable last line is skipped with a note. A missing or unreadable other file, or a key
// of the wrong type, is skipped with a note.
RunFolder read_run_folder(const std::filesystem::path& folder);

// The page for `runs`, overlaid in this order. Names that occur twice are made unique first.
std::string render_html_report(std::vector<RunFolder> runs);

// Reads each folder, renders the page and writes it to `out` atomically. Throws InputError
// (read_run_folder) or SystemError naming `out`.
void write_html_report(const std::vector<std::filesystem::path>& folders, const std::filesystem::path& out);

}  // namespace shmtrain::report
