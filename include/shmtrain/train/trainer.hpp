#pragma once
// The training loop of one worker, written against a Communicator so that one process
// (LocalCommunicator) and P data-parallel workers run the same code:
//
//   for each optimizer step:
//     zero the gradient arena
//     for each of the accumulation's micro-batches: forward, backward (loss / micro-batches)
//     all-reduce the gradients (average over workers) and the loss
//     clip the global norm, AdamW at the schedule's learning rate
//     log / evaluate / checkpoint when their step comes
//
// Semantics follow Hugging Face's Trainer (DESIGN.md "Numbers and semantics to keep"), with
// one deliberate difference: an epoch whose micro-batches do not divide by
// gradient_accumulation_steps ends with a shorter accumulation (its loss averaged over the
// micro-batches it has) instead of carrying gradients into the next epoch.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/train/step_engine.hpp"
#include "shmtrain/train/run_inputs.hpp"
#include "shmtrain/train/train_options.hpp"

namespace shmtrain::train {

struct TrainSummary {
  std::int64_t steps = 0;      // optimizer steps at the end
  double train_loss = 0;       // mean of the steps' losses run in this process
  double train_seconds = 0;
  std::int64_t train_samples = 0;  // samples seen by all workers in this process's run
  std::vector<std::pair<std::string, double>> eval_metrics;  // with the "eval_" prefix, HF's names
};

// What a run reads and decides before it trains: its inputs (model config, tokenizer,
// tokenized data) and, unless dry_run, the prepared output_dir and the checkpoint to resume
// from. Made once, before the workers are forked: bad input is one error before any worker
// exists, the data is tokenized once, and the workers share it copy-on-write.
struct PreparedRun {
  RunInputs inputs;
  std::filesystem::path resume;    // empty: a fresh run
  std::vector<std::string> notes;  // what the output_dir decision was, for rank 0 to print
  bool bf16 = false;               // --bf16 resolved against this CPU
  // For run_info.json (the report's summary), filled by the command that launches the run:
  // each worker's placement [{rank, package, numa, cores, threads, cpus}], and the options
  // {"options": {key: value}, "defaults": {key: value}} as the option table shows them.
  nlohmann::json placement = nlohmann::json::array();
  nlohmann::json option_values = nlohmann::json::object();
};

// --bf16 against this CPU (CpuFeatures::bf16_native(), tensor/cpu_features.hpp): true when the
// GEMMs run in bf16. Throws InputError for --bf16 true on a CPU without AVX512-BF16 or AMX;
// adds a note when auto falls back to fp32.
bool resolve_bf16(Bf16Mode mode, std::vector<std::string>& notes);

// The run's inputs, read and checked, without touching output_dir: what the launcher reads once
// for its workers, and every rank of an MPI job for itself, while one process alone prepares
// output_dir (prepare_output_dir) and shares the resume decision. Throws InputError for bad
// input (every check that needs no model weights).
PreparedRun prepare_inputs(const TrainOptions& options);

// The step engine's options for a run: AdamW's hyper-parameters, sharding, bf16 (resolved).
EngineOptions engine_options(const TrainOptions& options, bool bf16);

// The bytes each worker allocates from the launcher's shared arena (StepEngine's sizing).
std::size_t shared_arena_bytes(const TrainOptions& options, const PreparedRun& prepared, int workers);

// --dry_run: the model, data, workers and steps the run would have, and the resolved configuration.
void print_dry_run(const TrainOptions& options, const std::string& options_toml, const PreparedRun& prepared,
                   int workers, int threads, std::FILE* out);

// Runs options (already validated) on `comm`; every worker passes the same `prepared`. Rank 0
// writes output_dir and prints progress and log lines on `out`. `options_toml` is the resolved
// configuration saved with the model. Throws InputError for bad input and Error for failures.
TrainSummary run_training(const TrainOptions& options, const std::string& options_toml, const PreparedRun& prepared,
                          comm::Communicator& comm, std::FILE* out);

}  // namespace shmtrain::train
