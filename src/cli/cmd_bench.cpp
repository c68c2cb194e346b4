// `shmtrain bench allreduce`: the exchange's latency and bandwidth against the machine's memory
// bandwidth, measured in the same run by the same workers. Under an MPI launcher, each rank is
// a worker: the hierarchical all-reduce against MPI_Allreduce on the same buffers.
// `shmtrain bench train`: training samples/s of P workers against one worker on all cores and
// on cores/P (bench/train_bench.hpp).
#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "shmtrain/bench/allreduce_bench.hpp"
#include "shmtrain/bench/search_bench.hpp"
#include "shmtrain/bench/bert_workload.hpp"
#include "shmtrain/bench/train_bench.hpp"
#include "shmtrain/cli/commands.hpp"
#include "shmtrain/cli/multi_node_flags.hpp"
#include "shmtrain/cli/placement_flags.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/launch/job.hpp"
#include "shmtrain/launch/mpi_job.hpp"
#include "shmtrain/tensor/blas_runtime.hpp"
#include "shmtrain/tensor/cpu_features.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"

namespace shmtrain::cli {
namespace {

struct BenchAllreduceFlags {
  PlacementFlags placement;
  MultiNodeFlags multi_node;
  std::string sizes;
  bench::AllreduceBenchOptions options;
};

// 4 KiB to 64 MiB by powers of 4: every rank of a one-machine test job holds the largest twice.
std::vector<std::size_t> mpi_default_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t bytes = std::size_t{4} << 10; bytes <= std::size_t{64} << 20; bytes *= 4) sizes.push_back(bytes);
  return sizes;
}

// `bench allreduce` as a launch job (launch/job.hpp): each worker measures the exchange; under
// MPI against MPI_Allreduce on the same buffers.
class AllreduceBenchJob final : public launch::JobBody {
 public:
  explicit AllreduceBenchJob(const BenchAllreduceFlags& flags) : flags_(flags), options_(flags.options) {}

  launch::ResolvedJob resolve() override {
    if (launch::started_by_mpi_launcher()) {
      if (options_.copy_in) {
        fail_input("--copy_in is not measured under an MPI launcher: the buffers are the shared arena");
      }
      options_.sizes = flags_.sizes.empty() ? mpi_default_sizes() : bench::parse_sizes(flags_.sizes);
    } else {
      if (wants_mpirun(flags_.multi_node)) {
        start_mpirun(flags_.multi_node, flags_.placement, launch::LaunchOptions{}.between_hosts_timeout);
      }
      check_simulated_hosts(flags_.multi_node);
      options_.sizes = flags_.sizes.empty() ? bench::default_sizes() : bench::parse_sizes(flags_.sizes);
    }
    launch::ResolvedJob job;
    job.source = flags_.placement.source;
    job.placement = flags_.placement.placement;
    job.placement.unit = topo::parse_placement_unit(flags_.placement.unit);
    job.show_plan = options_.json ? launch::ShowPlan::kNever : launch::ShowPlan::kAlways;
    return job;
  }

  bool prepare(const launch::JobProcess& process) override {
    mpi_ = process.mpi;
    return true;
  }

  // The buffers are the shared arena's, unless --copy_in.
  std::size_t arena_bytes(const launch::JobProcess&) override {
    std::size_t largest = 0;
    for (std::size_t bytes : options_.sizes) largest = std::max(largest, bytes);
    return options_.copy_in ? 0 : largest + 4096;
  }

  int work(launch::WorkerContext& context) override {
    if (mpi_ == nullptr) {
      return bench::run_allreduce_bench(context.communicator, options_, context.placement.threads) ? 0 : 2;
    }
    const std::string layout =
        fmt::format("{} ranks = {} host(s) x {}{}", mpi_->size(), mpi_->hosts(), mpi_->local_size(),
                    flags_.multi_node.simulated_hosts > 0 ? " (simulated hosts)" : "");
    launch::MpiJob& mpi = *mpi_;
    const auto plain_allreduce = [&mpi](std::span<float> data) { mpi.plain_allreduce(data); };
    const bool verified =
        bench::run_hierarchical_allreduce_bench(context.communicator, plain_allreduce, options_, layout);
    return verified ? 0 : 2;
  }

 private:
  const BenchAllreduceFlags& flags_;
  bench::AllreduceBenchOptions options_;
  launch::MpiJob* mpi_ = nullptr;
};

int run_bench_allreduce(const BenchAllreduceFlags& flags) {
  AllreduceBenchJob job(flags);
  if (launch::run_job(job, flags.multi_node.simulated_hosts) != 0) {
    throw Error("bench allreduce: a result was wrong (see the 'verified' column)");
  }
  return 0;
}

struct BenchTrainFlags {
  PlacementFlags placement;
  std::string preset = "both";
  std::vector<std::string> configs;
  bench::TrainBenchOptions options;
  std::string lengths_file;
  std::string padding;  // empty: max_length, or all three layouts with --lengths
  bool json = false;
};

int run_bench_train(BenchTrainFlags flags) {
  if (!flags.lengths_file.empty())
    flags.options.lengths = bench::read_lengths(flags.lengths_file, flags.options.seq);
  flags.options.one_padding = !flags.padding.empty();
  if (flags.options.one_padding) flags.options.padding = data::parse_padding(flags.padding, "--padding");
  if (flags.options.steps < 1) fail_input("--steps must be >= 1, not {}", flags.options.steps);
  if (flags.options.warmup < 0) fail_input("--warmup must be >= 0, not {}", flags.options.warmup);
  if (flags.options.bf16 && !tensor::cpu_features().bf16_native()) {
    fail_input("--bf16 needs a CPU with AVX512-BF16 or AMX; this one has: {}",
               tensor::cpu_features().summary());
  }
  const std::vector<std::string> presets =
      flags.preset == "both" ? std::vector<std::string>{"base", "small"} : std::vector<std::string>{flags.preset};
  const ResolvedPlacement resolved = resolve_placement(flags.placement);
  topo::PlacementOptions placement = flags.placement.placement;
  placement.unit = topo::parse_placement_unit(flags.placement.unit);
  const bench::TrainBenchPlan bench_plan =
      bench::plan_train_bench(resolved.topology, placement, resolved.plan, flags.options.global_batch, flags.configs);
  if (!flags.json) {
    fmt::print("{}\n{}\n{}", tensor::blas_startup_line(), tensor::gemm_backends_line(flags.options.bf16),
               topo::format_plan(resolved.plan));
    for (const std::string& note : bench_plan.notes) fmt::print("note: {}\n", note);
    std::fflush(stdout);
  }
  bool verified = true;
  for (const std::string& preset : presets) {
    verified = bench::report_train_bench(resolved.topology, bench_plan, preset, flags.options, flags.json, stdout) &&
               verified;
  }
  if (!verified) throw Error("bench train: a configuration failed its verification (see the 'verified' column)");
  return 0;
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  CLI::App* sub = app.add_subcommand("bench", "Measure shmtrain's parts against this machine's limits");
  sub->require_subcommand(1);
  auto flags = std::make_shared<BenchAllreduceFlags>();
  CLI::App* allreduce = sub->add_subcommand(
      "allreduce", "All-reduce latency, algorithm and bus bandwidth, verified, next to the memory-bandwidth bound");
  add_placement_flags(*allreduce, flags->placement);
  allreduce->add_option("--sizes", flags->sizes, "Message sizes, e.g. 4K,1M,64M (default: 4K to 512M, powers of 2)");
  allreduce->add_option("--iters", flags->options.iterations,
                        "Timed iterations per size (default: 200 for small sizes down to 3 for 512 MiB)");
  allreduce->add_flag("--copy_in", flags->options.copy_in,
                      "Buffers in each worker's private memory (copied through the segment) instead of the shared arena");
  allreduce->add_flag("--json", flags->options.json, "One JSON object per size instead of the table");
  add_multi_node_flags(*allreduce, flags->multi_node);

  auto search = std::make_shared<bench::SearchBenchOptions>();
  CLI::App* search_cmd = sub->add_subcommand(
      "search", "mine-negatives' exact top-k search (blocked products) against this machine's GEMM rate");
  search_cmd->add_option("--queries", search->queries, "Query rows")->capture_default_str();
  search_cmd->add_option("--corpus", search->corpus, "Corpus rows")->capture_default_str();
  search_cmd->add_option("--dim", search->dim, "Embedding width")->capture_default_str();
  search_cmd->add_option("--k", search->k, "Candidates kept per query")->capture_default_str();
  search_cmd->add_option("--runs", search->runs, "Passes of each (the best counts)")->capture_default_str();

  auto train_flags = std::make_shared<BenchTrainFlags>();
  CLI::App* train = sub->add_subcommand(
      "train", "Training samples/s of P workers vs 1 worker on all cores, on cores/P and on 1 core, verified");
  add_placement_flags(*train, train_flags->placement);
  train
      ->add_option("--preset", train_flags->preset,
                   "Model: base (BERT-base), large (BERT-large), small (L4 H256), both (base and small), "
                   "modernbert-base (ModernBERT-base, up to 8,192 tokens), mmbert-base (mmBERT-base: its 256,000-token "
                   "vocabulary), deberta-v3-base (DeBERTa-v3-base), or "
                   "tiny / modernbert-tiny / deberta-v3-tiny (for tests)")
      ->capture_default_str();
  train->add_option("--batch", train_flags->options.global_batch, "Global batch: sequences per step, all workers")
      ->capture_default_str();
  train->add_option("--seq", train_flags->options.seq, "Sequence length")->capture_default_str();
  train->add_option(
      "--lengths", train_flags->lengths_file,
      "Real sequence lengths, one per line (capped at --seq): each configuration runs padded to "
      "--seq, padded to each batch's longest row and packed, side by side");
  train->add_option(
      "--padding", train_flags->padding,
      "Only this layout (max_length, longest or none); default: max_length, and with --lengths all "
      "three side by side");
  train->add_flag("--balance_tokens", train_flags->options.balance_tokens,
                  "Deal each step's rows to the workers by tokens, as `train --balance_tokens`");
  train->add_option("--steps", train_flags->options.steps, "Timed steps per configuration")->capture_default_str();
  train->add_option("--warmup", train_flags->options.warmup, "Untimed steps first")->capture_default_str();
  train->add_flag("--shard_optimizer", train_flags->options.shard_optimizer,
                  "Shard AdamW over the workers, as `train --shard_optimizer`");
  train->add_option("--overlap_exchange", train_flags->options.overlap_exchange,
                    "Average the gradients in buckets while backward runs (true) or in one all-reduce after it")
      ->capture_default_str();
  train->add_flag("--bf16", train_flags->options.bf16,
                  "bf16 mixed precision, as `train --bf16` (needs AVX512-BF16 or AMX)");
  train->add_flag("--ddp_bf16_grads", train_flags->options.bf16_grads,
                  "Exchange bf16 gradients, as `train --ddp_bf16_grads`");
  train->add_option("--configs", train_flags->configs,
                    "Configurations to measure, comma-separated: 1xall, Pxpart, 1xpart, 1x1 (default: all)")
      ->delimiter(',');
  train->add_flag("--json", train_flags->json, "One JSON object per configuration, then one of ratios, per preset");

  return {sub, [flags, train_flags, train, search, search_cmd] {
            if (train->parsed()) return run_bench_train(*train_flags);
            if (search_cmd->parsed()) {
              bench::run_search_bench(*search);
              return 0;
            }
            return run_bench_allreduce(*flags);
          }};
}

}  // namespace shmtrain::cli
