#include "run_report.hpp"

#include <fmt/format.h>

#include "shmtrain/tensor/gemm_bf16.hpp"

namespace shmtrain::train {
std::int64_t count_parameters(const model::ParamTable& table) {
  std::int64_t total = 0;
  for (const model::ParamEntry& entry : table.entries()) total += entry.size;
  return total;
}

namespace {

std::string format_count(std::int64_t n) {
  if (n >= 1'000'000) return fmt::format("{:.1f}M", static_cast<double>(n) / 1e6);
  if (n >= 1'000) return fmt::format("{:.1f}k", static_cast<double>(n) / 1e3);
  return std::to_string(n);
}

}  // namespace

std::string format_record(const nlohmann::ordered_json& record, std::int64_t total_steps) {
  std::string line = fmt::format("step {}/{}", record["step"].get<std::int64_t>(), total_steps);
  for (const auto& [key, value] : record.items()) {
    if (key == "step" || value.is_object() || (value.is_array() && key != "worker_wait")) continue;
    if (!value.is_number_float()) {
      line += fmt::format(" | {} {}", key, value.dump());
      continue;
    }
    const double x = value.get<double>();
    if (key == "learning_rate") {
      line += fmt::format(" | {} {:.3e}", key, x);
    } else if (key == "gemm_share") {
      line += fmt::format(" | gemm_share {:.1f}%", 100.0 * x);
    } else if (key == "epoch") {
      line += fmt::format(" | epoch {:.2f}", x);
    } else if (key.find("per_second") != std::string::npos || key.find("runtime") != std::string::npos ||
               key == "gflops") {
      line += fmt::format(" | {} {:.1f}", key, x);
    } else {
      line += fmt::format(" | {} {:.4f}", key, x);
    }
  }
  return line;
}

void print_plan(const TrainOptions& options, const RunInputs& inputs, const StepPlan& plan,
                const model::ParamTable& table, const PlanFacts& facts, std::FILE* out) {
  const model::BertConfig& c = inputs.config;
  fmt::print(out, "model: {}, {} layers, hidden {}, {} heads, {} parameters, {}\n", c.architecture(),
             c.num_hidden_layers, c.hidden_size, c.num_attention_heads, format_count(count_parameters(table)),
             facts.weights_origin);
  fmt::print(out, "data: {}\n", inputs.task->describe());
  if (options.do_train) {
    fmt::print(out,
               "training: {} worker(s) x {} threads{}{} | batch {} x {} worker(s) x {} accumulation = {} | {} "
               "steps/epoch, {} steps, warmup {} | lr {:g} {}\n",
               facts.workers, facts.threads, facts.bf16 ? ", bf16" : ", fp32",
               options.shard_optimizer && facts.workers > 1 ? ", sharded optimizer" : "",
               options.per_device_train_batch_size, facts.workers, options.gradient_accumulation_steps,
               plan.global_batch, plan.steps_per_epoch, plan.total_steps, plan.warmup_steps, options.learning_rate,
               to_string(options.lr_scheduler_type));
  }
  fmt::print(out, "{}\n", tensor::gemm_backends_line(facts.bf16));
  std::fflush(out);
}

}  // namespace shmtrain::train
