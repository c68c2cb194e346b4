#pragma once
// Internal to train: output_dir/run_info.json, what a run is beyond its metrics — shmtrain's
// version and build, the model, task and data sizes, precision, steps, each worker's
// placement, the machine's rate on the model's linears (machine_rate.hpp) and the options —
// for `shmtrain report`'s summary. Rank 0 writes it when training starts and again, finished, at the end.
#include <string>

#include <nlohmann/json.hpp>

#include "run_report.hpp"
#include "shmtrain/train/machine_rate.hpp"
#include "shmtrain/train/trainer.hpp"

namespace shmtrain::train {

nlohmann::ordered_json run_info_json(const TrainOptions& options, const PreparedRun& prepared, const StepPlan& plan,
                                     const model::ParamTable& table, const PlanFacts& facts, const MachineRate& rate);

}  // namespace shmtrain::train
