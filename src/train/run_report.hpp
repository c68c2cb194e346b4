#pragma once
// Internal to train: the lines a run prints — its plan (model, data, workers, steps, GEMM
// kernels) before it starts, and each log or evaluation record as it comes.
#include <cstdint>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "shmtrain/model/param_table.hpp"
#include "shmtrain/train/run_inputs.hpp"
#include "shmtrain/train/step_plan.hpp"
#include "shmtrain/train/train_options.hpp"

namespace shmtrain::train {

// The model's parameters, every tensor of the table.
std::int64_t count_parameters(const model::ParamTable& table);

// "step 50/3750 | epoch 0.20 | loss 0.6927 | learning_rate 6.533e-05 | ...".
std::string format_record(const nlohmann::ordered_json& record, std::int64_t total_steps);

struct PlanFacts {
  int workers = 1;
  int threads = 1;
  bool bf16 = false;
  const char* weights_origin = "random weights";
};

// The plan's lines: model, data, training (when do_train) and GEMM kernels.
void print_plan(const TrainOptions& options, const RunInputs& inputs, const StepPlan& plan,
                const model::ParamTable& table, const PlanFacts& facts, std::FILE* out);

}  // namespace shmtrain::train
