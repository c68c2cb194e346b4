#pragma once
// `shmtrain bench train` (issue #5): samples/s of the training step itself
// (train::StepEngine, what `shmtrain train` runs) on synthetic batches, split into forward,
// backward, exposed exchange and optimizer, for the configurations that data parallelism is
// judged by. P is the placement plan's worker count:
//
//   1xall    1 worker on all the plan's cores, the global batch   (the single-process peer)
//   Pxpart   P workers on cores/P each, global batch / P each      (shmtrain's way)
//   1xpart   1 worker on worker 0's cores, global batch / P        (the weak-scaling unit:
//            scaling efficiency = samples/s(Pxpart) / (P x samples/s(1xpart)))
//   1x1      1 worker on 1 core, the global batch                  (the per-core rate)
//
// Every configuration is one launch_workers job, so the calling process never computes (fork
// copies only the calling thread); rank 0 hands the result back through a shared mapping.
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/data/collate.hpp"
#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/topo/placement.hpp"
#include "shmtrain/topo/topology.hpp"

namespace shmtrain::bench {

struct TrainBenchOptions {
  std::int64_t global_batch = 32;  // sequences per optimizer step, all workers together
  std::int64_t seq = 128;
  int steps = 5;                 // timed steps
  int warmup = 1;                // untimed steps first (allocation, page faults, caches)
  bool shard_optimizer = false;  // as `train --shard_optimizer`
  bool overlap_exchange = true;  // false: one all-reduce after backward instead of buckets during it
  bool bf16 = false;             // as `train --bf16`
  bool bf16_grads = false;       // as `train --ddp_bf16_grads`
  // Real sequence lengths (read_lengths): step k trains on rows [k * batch, (k + 1) * batch)
  // of the file (wrapping), each worker on its consecutive share, as the PyTorch peer
  // (torch_bert.py --lengths) does; laid out by `padding`. Empty: every row is `seq` long.
  std::vector<std::int32_t> lengths;
  data::Padding padding = data::Padding::kMaxLength;
  // With lengths: only `padding` instead of all three layouts side by side.
  bool one_padding = false;
  // As `train --balance_tokens`: each step's rows dealt to the workers by tokens.
  bool balance_tokens = false;
};

// Medians over the timed steps. A step's time is the slowest worker's (the step ends in a
// collective); each phase is averaged over the workers. Plain data: it crosses fork in shared
// memory.
struct TrainBenchResult {
  int workers = 0;
  int threads = 0;           // compute threads per worker
  std::int64_t batch = 0;    // sequences per step, all workers together
  double samples_per_s = 0;  // batch / step_s
  double step_s = 0;
  double forward_s = 0;
  double backward_s = 0;
  double exchange_s = 0;   // exposed: what the step waited for the exchange
  double optimizer_s = 0;  // clipping, AdamW (and, sharded, the parameters' all-gather)
  double useful_flops = 0;  // model::batch_train_flops of a timed step's batches, averaged
  // The machine's rate on the model's linears (train/machine_rate.hpp), measured before the steps
  // on every worker at once; of the run's precision.
  double gemm_gflops = 0;
  std::int64_t gemm_tokens = 0;
  // The most any worker waited for the others (the slowest forward + backward minus its own),
  // as a share of its timed steps.
  double wait_share = 0;
  double first_loss = 0;
  double last_loss = 0;
  // Every loss and gradient norm finite (norm > 0), losses identical on every worker, and the
  // parameters bit-identical on every worker after the last step.
  bool verified = false;
};
static_assert(std::is_trivially_copyable_v<TrainBenchResult>);

// Collective, in every worker of a job: builds the engine, initialises the parameters (fixed
// seed), and runs warm-up and timed steps on the workers' shares of one fixed synthetic global
// batch of `batch` sequences. Every worker returns the same result.
// REQUIRES: batch divisible by communicator.size().
TrainBenchResult run_train_bench(comm::Communicator& communicator, const model::BertConfig& config,
                                 const TrainBenchOptions& options, std::int64_t batch);

struct TrainBenchConfiguration {
  std::string id;     // "1xall", "Pxpart", "1xpart", "1x1"
  std::string label;  // "2 x 1 core", for the table
  topo::PlacementPlan plan;
  std::int64_t batch = 0;  // sequences per step, all its workers together
};

struct TrainBenchPlan {
  int workers = 1;  // P
  std::vector<TrainBenchConfiguration> configurations;
  std::vector<std::string> notes;  // configurations skipped and why, uneven plans
};

// The configurations above for `plan` (P = its workers), those in `ids` only (empty: all),
// leaving out one identical to an earlier one and, when P is 1, the P-worker ones.
// `placement` is what made `plan`; the one-worker plans are made from `topology` with it.
// Throws InputError for an unknown id or a global batch that P does not divide.
TrainBenchPlan plan_train_bench(const topo::Topology& topology, const topo::PlacementOptions& placement,
                                const topo::PlacementPlan& plan, std::int64_t global_batch,
                                const std::vector<std::string>& ids);

// Runs one configuration as its own job and returns rank 0's result.
// REQUIRES: no thread runs in the calling process (launch::launch_workers).
TrainBenchResult measure_configuration(const topo::Topology& topology,
                                       const TrainBenchConfiguration& configuration,
                                       const model::BertConfig& config, const TrainBenchOptions& options);

// Measures every configuration of `bench_plan` on the preset `preset` and writes the table
// (or, with `json`, one JSON object per row and one of ratios) to `out`, each row as soon as
// it is measured, then the ratios issue #5 sets goals for. Returns false when a row failed
// its verification. REQUIRES: as measure_configuration.
bool report_train_bench(const topo::Topology& topology, const TrainBenchPlan& bench_plan,
                        const std::string& preset, const TrainBenchOptions& options, bool json,
                        std::FILE* out);

}  // namespace shmtrain::bench
