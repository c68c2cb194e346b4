#pragma once
// Internal to train: output_dir/run_info.json, what a run is beyond its metrics — shmtrain's
// version and build, the model, task and data sizes, precision, steps, each worker's
// placement, the machine's measured GEMM rate and the options — for `shmtrain report`'s
// summary. Rank 0 writes it when training starts and again, finished, at the end.
#include <string>

#include <nlohmann/json.hpp>

#include "run_report.hpp"
#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/train/trainer.hpp"

namespace shmtrain::train {

// Collective: every worker times a GEMM of the run's precision on its threads at once; the
// job's rate in GFLOP/s (the workers' sum). About a tenth of a second.
double measure_job_gemm_gflops(comm::Communicator& comm, bool bf16);

nlohmann::ordered_json run_info_json(const TrainOptions& options, const PreparedRun& prepared, const StepPlan& plan,
                                     const model::ParamTable& table, const PlanFacts& facts, double gemm_gflops);

}  // namespace shmtrain::train
