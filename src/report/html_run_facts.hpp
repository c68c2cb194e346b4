#pragma once
// Internal to report: what the page's tables say about a run, from run_info.json where the run
// wrote one, else from what older runs and Hugging Face's Trainer leave (config.json,
// shmtrain_config.toml, *_results.json, trainer_state.json). Every value is text, not yet
// escaped; a fact the folder does not hold is left out.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shmtrain/report/html_report.hpp"

namespace shmtrain::report {

using TextRows = std::vector<std::pair<std::string, std::string>>;  // (label, value)

struct RunFacts {
  std::string status;  // "finished", "in progress" or "" (no run_info.json to tell)
  std::string task;
  std::string model;  // "BertForSequenceClassification, 2 layers, hidden 128"
  std::optional<double> wall_seconds;
  std::string wall_source;      // "run_info.json" or "train_runtime"
  std::int64_t last_step = -1;  // of the last record; -1 without records
  std::int64_t total_steps = -1;
  std::size_t training_records = 0;
  std::size_t evaluation_records = 0;

  TextRows run;  // version, build, started, status, wall time, steps, precision, batch
  TextRows model_rows;
  TextRows data;  // task and row counts
  TextRows final_metrics;
  TextRows options;                             // resolved, in the run's order
  std::map<std::string, std::string> defaults;  // empty when the run did not record them

  std::vector<std::string> placement_columns;  // rank, package, NUMA node, ...
  std::vector<std::vector<std::string>> placement;

  std::optional<double> machine_gemm_gflops;
  std::optional<double> achieved_gflops;  // the median over the training records
  std::vector<double> mean_split;         // forward..wait seconds per step, over workers and records
};

RunFacts run_facts(const RunFolder& run);

// A JSON value as a table shows it: strings without quotes, numbers as JSON writes them.
std::string json_text(const nlohmann::ordered_json& value);

}  // namespace shmtrain::report
