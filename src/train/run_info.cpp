#include "run_info.hpp"

#include <chrono>
#include <ctime>
#include <vector>

#include <fmt/format.h>

#include "shmtrain/tensor/bf16.hpp"
#include "shmtrain/tensor/gemm.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"

namespace shmtrain::train {
namespace {

// The product's shape: a BERT-base feed-forward GEMM of 512 tokens.
constexpr std::int64_t kM = 512, kN = 768, kK = 3072;

double time_gemm(bool bf16, int repeats) {
  std::vector<float> a(kM * kK, 0.5f), b(kK * kN, 0.25f), c(kM * kN, 0.0f);
  std::vector<tensor::bf16> a16, b16;
  if (bf16) {
    for (const float x : a) a16.push_back(tensor::to_bf16(x));
    for (const float x : b) b16.push_back(tensor::to_bf16(x));
  }
  const auto run = [&] {
    if (bf16) {
      tensor::gemm_bf16(tensor::Trans::kNo, tensor::Trans::kNo, kM, kN, kK, 1.0f, a16.data(), kK, b16.data(), kN,
                        0.0f, c.data(), kN);
    } else {
      tensor::gemm(tensor::Trans::kNo, tensor::Trans::kNo, kM, kN, kK, 1.0f, a.data(), kK, b.data(), kN, 0.0f,
                   c.data(), kN);
    }
  };
  run();  // warm-up: kernels chosen, pages touched
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repeats; ++i) run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace

double measure_job_gemm_gflops(comm::Communicator& comm, bool bf16) {
  comm.barrier();  // every worker measures at once, as they compute during training
  constexpr int kRepeats = 3;
  const double seconds = time_gemm(bf16, kRepeats);
  float rate = seconds > 0 ? static_cast<float>(2.0 * kM * kN * kK * kRepeats / seconds * 1e-9) : 0.0f;
  if (comm.size() > 1) comm.allreduce({&rate, 1}, comm::ReduceOp::sum);
  return rate;
}

nlohmann::ordered_json run_info_json(const TrainOptions& options, const PreparedRun& prepared, const StepPlan& plan,
                                     const model::ParamTable& table, const PlanFacts& facts, double gemm_gflops) {
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
  info["machine_gemm_gflops"] = gemm_gflops;
  info["options"] = prepared.option_values.value("options", nlohmann::json::object());
  info["defaults"] = prepared.option_values.value("defaults", nlohmann::json::object());
  info["output_dir"] = options.output_dir.string();
  return info;
}

}  // namespace shmtrain::train
