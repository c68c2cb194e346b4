#include "results_files.hpp"

#include "shmtrain/io/atomic_file.hpp"

namespace shmtrain::train {
namespace {

double per_second(double count, double seconds) { return seconds > 0 ? count / seconds : 0.0; }

// As Trainer.save_metrics writes them: json.dump(metrics, f, indent=4, sort_keys=True).
std::string as_trainer_writes(const nlohmann::ordered_json& results) {
  const nlohmann::json sorted = results;  // std::map: keys in byte order, Python's for ASCII keys
  return sorted.dump(4) + "\n";
}

}  // namespace

std::optional<nlohmann::ordered_json> predict_results(const PredictResult& result) {
  const task::Prediction& p = result.prediction;
  if (p.metrics.empty()) return std::nullopt;
  nlohmann::ordered_json record;
  for (const auto& [name, value] : p.metrics) record[p.prefix + "_" + name] = value;
  record[p.prefix + "_runtime"] = result.seconds;
  record[p.prefix + "_samples_per_second"] = per_second(static_cast<double>(result.samples), result.seconds);
  record[p.prefix + "_steps_per_second"] = per_second(static_cast<double>(result.steps), result.seconds);
  if (p.with_samples) record["predict_samples"] = result.samples;
  return record;
}

void write_results_files(const std::filesystem::path& dir, const std::optional<TrainResults>& train,
                         const std::optional<nlohmann::ordered_json>& eval,
                         const std::optional<nlohmann::ordered_json>& predict) {
  nlohmann::ordered_json all = nlohmann::ordered_json::object();
  if (train) {
    nlohmann::ordered_json results;
    results["epoch"] = train->epoch;
    results["train_loss"] = train->train_loss;
    results["train_runtime"] = train->seconds;
    results["train_samples"] = train->train_rows;
    results["train_samples_per_second"] = per_second(static_cast<double>(train->samples_seen), train->seconds);
    results["train_steps_per_second"] = per_second(static_cast<double>(train->steps_run), train->seconds);
    results["total_steps"] = train->total_steps;
    io::write_file_atomically(dir / "train_results.json", as_trainer_writes(results));
    all = results;
  }
  if (eval) {
    nlohmann::ordered_json results;
    results["epoch"] = (*eval)["epoch"];
    for (const auto& [key, value] : eval->items()) {
      if (key.rfind("eval_", 0) == 0 || key == "perplexity") results[key] = value;  // run_mlm's perplexity
    }
    io::write_file_atomically(dir / "eval_results.json", as_trainer_writes(results));
    for (const auto& [key, value] : results.items()) all[key] = value;
  }
  if (predict) {
    io::write_file_atomically(dir / "predict_results.json", as_trainer_writes(*predict));
    for (const auto& [key, value] : predict->items()) all[key] = value;
  }
  io::write_file_atomically(dir / "all_results.json", as_trainer_writes(all));
}

}  // namespace shmtrain::train
