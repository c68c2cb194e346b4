#include "shmtrain/train/trainer.hpp"

#include <fmt/format.h>

#include "run_report.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/cpu_features.hpp"
#include "shmtrain/train/output_dir.hpp"
#include "training_run.hpp"

namespace shmtrain::train {

bool resolve_bf16(Bf16Mode mode, std::vector<std::string>& notes) {
  if (mode == Bf16Mode::kOff) return false;
  if (tensor::cpu_features().bf16_native()) return true;
  if (mode == Bf16Mode::kOn) {
    fail_input(
        "--bf16: this CPU has neither AVX512-BF16 nor AMX (it has: {}); pass --bf16 auto to train in fp32 "
        "where bf16 is not available, or leave --bf16 out",
        tensor::cpu_features().summary());
  }
  notes.push_back(fmt::format("--bf16 auto: this CPU has neither AVX512-BF16 nor AMX ({}); training in fp32",
                              tensor::cpu_features().summary()));
  return false;
}

EngineOptions engine_options(const TrainOptions& options, bool bf16) {
  return EngineOptions{.adamw = optim::AdamWOptions{.beta1 = static_cast<float>(options.adam_beta1),
                                                    .beta2 = static_cast<float>(options.adam_beta2),
                                                    .eps = static_cast<float>(options.adam_epsilon),
                                                    .weight_decay = static_cast<float>(options.weight_decay)},
                       .shard_optimizer = options.shard_optimizer,
                       .bf16 = bf16,
                       .bf16_grads = options.ddp_bf16_grads};
}

std::size_t shared_arena_bytes(const TrainOptions& options, const PreparedRun& prepared, int workers) {
  return StepEngine::shared_arena_bytes(model::ParamTable::for_model(prepared.inputs.config), workers,
                                        engine_options(options, prepared.bf16));
}

PreparedRun prepare_inputs(const TrainOptions& options) {
  std::vector<std::string> notes;
  const bool bf16 = resolve_bf16(options.bf16, notes);
  StepEngine::check_options(engine_options(options, bf16));
  PreparedRun prepared{.inputs = load_run_inputs(options), .resume = {}, .notes = std::move(notes), .bf16 = bf16};
  prepared.notes.insert(prepared.notes.end(), prepared.inputs.notes.begin(), prepared.inputs.notes.end());
  const task::Task& task = *prepared.inputs.task;
  if (options.do_train && (!task.train() || task.train()->examples.empty())) fail_input("the training data is empty");
  if (options.do_eval && task.retrieval() == nullptr && (!task.validation() || task.validation()->examples.empty())) {
    fail_input("the evaluation data is empty");
  }
  if (options.do_predict && (!task.test() || task.test()->examples.empty())) fail_input("the test data is empty");
  return prepared;
}

void print_dry_run(const TrainOptions& options, const std::string& options_toml, const PreparedRun& prepared,
                   int workers, int threads, std::FILE* out) {
  const RunInputs& inputs = prepared.inputs;
  const model::ParamTable table = model::ParamTable::for_model(inputs.config);
  const StepPlan plan =
      options.do_train ? plan_steps(options, static_cast<std::int64_t>(inputs.task->train()->examples.size()), workers)
                       : StepPlan{};
  print_plan(options, inputs, plan, table,
             PlanFacts{.workers = workers,
                       .threads = threads,
                       .bf16 = prepared.bf16,
                       .weights_origin = inputs.weights.empty() ? "random weights" : "weights from the model folder"},
             out);
  fmt::print(out, "\nresolved configuration:\n{}", options_toml);
}

TrainSummary run_training(const TrainOptions& options, const std::string& options_toml, const PreparedRun& prepared,
                          comm::Communicator& comm, std::FILE* out) {
  TrainingRun run(options, options_toml, prepared, comm, out);
  return run.execute();
}

}  // namespace shmtrain::train
