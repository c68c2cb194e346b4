#include "run_info.hpp"

#include <ctime>

#include <fmt/format.h>

namespace shmtrain::train {
namespace {

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

nlohmann::ordered_json run_info_json(const TrainOptions& options, const PreparedRun& prepared, const StepPlan& plan,
                                     const model::ParamTable& table, const PlanFacts& facts, const MachineRate& rate) {
  const RunInputs& inputs = prepared.inputs;
  const model::BertConfig& c = inputs.config;
  nlohmann::ordered_json info;
  info["shmtrain_version"] = SHMTRAIN_VERSION_TEXT;
  info["build"] = fmt::format("{} {}, {}", SHMTRAIN_COMPILER_TEXT, SHMTRAIN_BUILD_TYPE_TEXT, __DATE__);
  info["started"] = utc_now();
  info["finished"] = false;
  info["model"] = {{"architecture", c.architecture()},
                   {"model_type", c.model_type},
                   {"layers", c.num_hidden_layers},
                   {"hidden", c.hidden_size},
                   {"heads", c.num_attention_heads},
                   {"parameters", count_parameters(table)},
                   {"weights", facts.weights_origin}};
  info["task"] = inputs.task->name().empty() ? std::string("custom files") : inputs.task->name();
  nlohmann::ordered_json data;
  if (inputs.task->train()) data["train_rows"] = inputs.task->train()->examples.size();
  if (inputs.task->validation()) data["validation_rows"] = inputs.task->validation()->examples.size();
  info["data"] = data;
  info["precision"] = facts.bf16 ? "bf16" : "fp32";
  info["total_steps"] = plan.total_steps;
  info["global_batch"] = plan.global_batch;
  info["workers"] = prepared.placement;
  info["threads_per_worker"] = facts.threads;
  // The rate of the run's own products (bf16 under --bf16), which the report divides by.
  info["machine_gemm_gflops"] = rate.of_run();
  nlohmann::ordered_json measured = {{"tokens", rate.tokens}, {"fp32_gflops", rate.fp32}};
  if (rate.bf16) measured["bf16_gflops"] = *rate.bf16;
  info["machine_rate"] = measured;
  info["options"] = prepared.option_values.value("options", nlohmann::json::object());
  info["defaults"] = prepared.option_values.value("defaults", nlohmann::json::object());
  info["output_dir"] = options.output_dir.string();
  return info;
}

}  // namespace shmtrain::train
