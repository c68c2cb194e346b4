#include "html_run_facts.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "html_text.hpp"

namespace shmtrain::report {
namespace {

using Json = nlohmann::ordered_json;

// object[key] when `object` is an object holding a non-null `key`.
const Json* member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// The first of `keys` that `object` holds (config.json spells DistilBERT's sizes differently).
const Json* first_member(const Json& object, std::initializer_list<std::string_view> keys) {
  for (const std::string_view key : keys) {
    if (const Json* value = member(object, key)) return value;
  }
  return nullptr;
}

std::optional<double> number(const Json* value) {
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return value->get<double>();
}

void add(TextRows& rows, std::string label, const Json* value) {
  if (value != nullptr) rows.emplace_back(std::move(label), json_text(*value));
}

void add(TextRows& rows, std::string label, std::string value) {
  if (!value.empty()) rows.emplace_back(std::move(label), std::move(value));
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

void model_facts(const RunFolder& run, RunFacts& facts) {
  const Json* info_model = member(run.run_info, "model");
  const Json& config = run.model_config;
  const Json empty = Json::object();
  const Json& model = info_model != nullptr && info_model->is_object() ? *info_model : empty;
  const Json* architectures = member(config, "architectures");
  const Json* architecture = member(model, "architecture");
  if (architecture == nullptr && architectures != nullptr && architectures->is_array() &&
      !architectures->empty()) {
    architecture = &architectures->front();
  }
  const Json* type = info_model != nullptr ? member(model, "model_type") : member(config, "model_type");
  const Json* layers = info_model != nullptr ? member(model, "layers")
                                             : first_member(config, {"num_hidden_layers", "n_layers"});
  const Json* hidden =
      info_model != nullptr ? member(model, "hidden") : first_member(config, {"hidden_size", "dim"});
  const Json* heads = info_model != nullptr ? member(model, "heads")
                                            : first_member(config, {"num_attention_heads", "n_heads"});
  add(facts.model_rows, "architecture", architecture);
  add(facts.model_rows, "model type", type);
  add(facts.model_rows, "layers", layers);
  add(facts.model_rows, "hidden size", hidden);
  add(facts.model_rows, "attention heads", heads);
  if (const std::optional<double> parameters = number(member(model, "parameters"))) {
    facts.model_rows.emplace_back(
        "parameters", fmt::format("{} ({})", format_count(*parameters), format_value(*parameters)));
  }
  add(facts.model_rows, "weights", member(model, "weights"));
  if (architecture != nullptr) {
    facts.model = json_text(*architecture);
    if (layers != nullptr) facts.model += fmt::format(", {} layers", json_text(*layers));
    if (hidden != nullptr) facts.model += fmt::format(", hidden {}", json_text(*hidden));
  }
}

void data_facts(const RunFolder& run, RunFacts& facts) {
  if (const Json* task = member(run.run_info, "task")) {
    facts.task = json_text(*task);
  } else {
    for (const auto& [key, value] : run.config_options) {
      if (key == "task_name") facts.task = value;
    }
  }
  add(facts.data, "task", facts.task);
  const Json* data = member(run.run_info, "data");
  const Json* train_rows =
      data != nullptr ? member(*data, "train_rows") : member(run.results, "train_samples");
  const Json* validation_rows =
      data != nullptr ? member(*data, "validation_rows") : member(run.results, "eval_samples");
  add(facts.data, "training rows", train_rows);
  add(facts.data, "validation rows", validation_rows);
}

void run_rows(const RunFolder& run, RunFacts& facts) {
  const Json& info = run.run_info;
  if (info.is_null()) facts.run.emplace_back("shmtrain", "unknown (no run_info.json)");
  add(facts.run, "shmtrain", member(info, "shmtrain_version"));
  add(facts.run, "build", member(info, "build"));
  add(facts.run, "started", member(info, "started"));
  if (const Json* finished = member(info, "finished"); finished != nullptr && finished->is_boolean()) {
    facts.status = finished->get<bool>() ? "finished" : "in progress";
    facts.run.emplace_back("status",
                           finished->get<bool>() ? "finished" : "in progress (or stopped before its end)");
  }
  const std::optional<double> wall = number(member(info, "wall_seconds"));
  if (wall && (*wall > 0 || facts.status == "finished")) {
    facts.wall_seconds = wall;
    facts.wall_source = "run_info.json";
  } else if (const std::optional<double> runtime = number(member(run.results, "train_runtime"))) {
    facts.wall_seconds = runtime;
    facts.wall_source = "train_runtime";
  } else {
    for (const LogRecord& record : run.records) {  // Trainer's last log: train_runtime, train_loss
      if (const std::optional<double> seconds = record.value("train_runtime")) {
        facts.wall_seconds = seconds;
        facts.wall_source = "train_runtime";
      }
    }
  }
  if (facts.wall_seconds) {
    add(facts.run, facts.wall_source == "train_runtime" ? "training time" : "wall time",
        format_duration(*facts.wall_seconds));
  }
  if (const std::optional<double> total = number(member(info, "total_steps"))) {
    facts.total_steps = static_cast<std::int64_t>(*total);
  } else if (const std::optional<double> max_steps = number(member(run.trainer_state, "max_steps"))) {
    facts.total_steps = static_cast<std::int64_t>(*max_steps);
  }
  for (const LogRecord& record : run.records) {
    facts.last_step = std::max(facts.last_step, record.step);
    if (record.is_training()) ++facts.training_records;
    if (record.is_evaluation()) ++facts.evaluation_records;
  }
  if (facts.last_step >= 0 || facts.total_steps >= 0) {
    add(facts.run, "steps",
        fmt::format("{} of {}",
                    facts.last_step >= 0 ? fmt::format("{}", facts.last_step) : std::string("none"),
                    facts.total_steps >= 0 ? fmt::format("{}", facts.total_steps) : std::string("?")));
  }
  add(facts.run, "records",
      run.records_source.empty()
          ? std::string("none (no metrics.jsonl)")
          : fmt::format("{} training logs, {} evaluations ({})", facts.training_records,
                        facts.evaluation_records, run.records_source));
  add(facts.run, "precision", member(info, "precision"));
  add(facts.run, "global batch", member(info, "global_batch"));
  add(facts.run, "threads per worker", member(info, "threads_per_worker"));
}

void metric_facts(const RunFolder& run, RunFacts& facts) {
  if (run.results.is_object()) {
    for (const auto& [key, value] : run.results.items()) {
      facts.final_metrics.emplace_back(
          key, value.is_number() ? format_value(value.get<double>()) : json_text(value));
    }
    return;
  }
  // No results file (a run in progress): its last evaluation and training loss.
  for (auto it = run.records.rbegin(); it != run.records.rend(); ++it) {
    if (!it->is_evaluation()) continue;
    for (const auto& [key, value] : it->values) facts.final_metrics.emplace_back(key, format_value(value));
    break;
  }
  for (auto it = run.records.rbegin(); it != run.records.rend(); ++it) {
    if (const std::optional<double> loss = it->value("loss")) {
      facts.final_metrics.emplace_back(fmt::format("loss at step {}", it->step), format_value(*loss));
      break;
    }
  }
}

void option_facts(const RunFolder& run, RunFacts& facts) {
  const Json* options = member(run.run_info, "options");
  if (options != nullptr && options->is_object()) {
    for (const auto& [key, value] : options->items()) facts.options.emplace_back(key, json_text(value));
    if (const Json* defaults = member(run.run_info, "defaults");
        defaults != nullptr && defaults->is_object()) {
      for (const auto& [key, value] : defaults->items()) facts.defaults.emplace(key, json_text(value));
    }
    return;
  }
  facts.options = run.config_options;
}

void placement_facts(const RunFolder& run, RunFacts& facts) {
  const Json* workers = member(run.run_info, "workers");
  if (workers == nullptr || !workers->is_array()) return;
  // The usual columns in reading order (run_info.json may have its keys sorted), then the rest.
  std::vector<std::string> keys = {"rank", "package", "numa", "cores", "threads", "cpus"};
  std::erase_if(keys, [&](const std::string& key) {
    return std::none_of(workers->begin(), workers->end(),
                        [&](const Json& w) { return member(w, key) != nullptr; });
  });
  for (const Json& worker : *workers) {
    if (!worker.is_object()) continue;
    for (const auto& [key, value] : worker.items()) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  for (const std::string& key : keys) facts.placement_columns.push_back(key == "numa" ? "NUMA node" : key);
  for (const Json& worker : *workers) {
    if (!worker.is_object()) continue;
    std::vector<std::string> row;
    for (const std::string& key : keys) {
      const Json* value = member(worker, key);
      row.push_back(value != nullptr ? json_text(*value) : "");
    }
    facts.placement.push_back(std::move(row));
  }
}

void compute_facts(const RunFolder& run, RunFacts& facts) {
  facts.machine_gemm_gflops = number(member(run.run_info, "machine_gemm_gflops"));
  std::vector<double> rates;
  std::array<double, 6> sums{};
  std::size_t splits = 0;
  for (const LogRecord& record : run.records) {
    if (const std::optional<double> gflops = record.value("gflops"); gflops && *gflops > 0)
      rates.push_back(*gflops);
    for (const StepSplit& s : record.workers) {
      const std::array<double, 6> parts = {s.forward, s.backward, s.exchange, s.optimizer, s.data, s.wait};
      for (std::size_t i = 0; i < parts.size(); ++i) sums[i] += parts[i];
      ++splits;
    }
  }
  if (!rates.empty()) facts.achieved_gflops = median(rates);
  if (splits > 0) {
    for (const double sum : sums) facts.mean_split.push_back(sum / static_cast<double>(splits));
  }
}

}  // namespace

std::string json_text(const nlohmann::ordered_json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "none";
  if (value.is_array() &&
      std::none_of(value.begin(), value.end(), [](const auto& v) { return v.is_structured(); })) {
    std::string text;  // [0, 1] as "0, 1": a worker's NUMA nodes
    for (const auto& item : value) text += (text.empty() ? "" : ", ") + json_text(item);
    return text;
  }
  return value.dump();
}

RunFacts run_facts(const RunFolder& run) {
  RunFacts facts;
  run_rows(run, facts);
  model_facts(run, facts);
  data_facts(run, facts);
  metric_facts(run, facts);
  option_facts(run, facts);
  placement_facts(run, facts);
  compute_facts(run, facts);
  return facts;
}

}  // namespace shmtrain::report
