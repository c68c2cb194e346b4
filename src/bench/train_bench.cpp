// The worker side of `shmtrain bench train` (the training step, timed and verified) and one
// configuration's job. Configurations and the report: train_bench_plan.cpp, cli/cmd_bench.cpp.
#include "shmtrain/model/batch_validation.hpp"
#include "shmtrain/bench/train_bench.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>

#include "shmtrain/bench/bert_workload.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/data/token_balance.hpp"
#include "shmtrain/launch/launcher.hpp"
#include "shmtrain/model/init.hpp"
#include "shmtrain/model/train_flops.hpp"
#include "shmtrain/tensor/threads.hpp"
#include "shmtrain/train/machine_rate.hpp"
#include "shmtrain/train/step_engine.hpp"

namespace shmtrain::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Fixed, so that every configuration trains the same model on the same global batch.
constexpr std::uint64_t kSeed = 42;
constexpr float kLearningRate = 2e-5f;
constexpr double kMaxGradNorm = 1.0;
// Floats compared per collective when checking that the workers' parameters agree.
constexpr std::size_t kCompareChunk = std::size_t{1} << 22;

double median(std::vector<float> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

// Elements of `data` that differ from another worker's: each worker compares its values with
// the maximum and the minimum over all workers, so any disagreement shows on some worker.
// Collective; counts are this worker's.
std::size_t count_disagreeing(comm::Communicator& communicator, std::span<const float> data) {
  std::size_t differ = 0;
  std::vector<float> high, low;
  for (std::size_t begin = 0; begin < data.size(); begin += kCompareChunk) {
    const std::span<const float> chunk = data.subspan(begin, std::min(kCompareChunk, data.size() - begin));
    high.assign(chunk.begin(), chunk.end());
    low.resize(chunk.size());
    std::transform(chunk.begin(), chunk.end(), low.begin(), [](float x) { return -x; });
    communicator.allreduce(high, comm::ReduceOp::max);
    communicator.allreduce(low, comm::ReduceOp::max);
    for (std::size_t i = 0; i < chunk.size(); ++i) differ += high[i] != chunk[i] || -low[i] != chunk[i];
  }
  return differ;
}

// This worker's micro-batch of step `step`: its share of the fixed synthetic batch, or of the
// step's rows of the lengths file, laid out by options.padding.
class StepBatches {
 public:
  StepBatches(const model::BertConfig& config, const TrainBenchOptions& options, std::int64_t batch, int rank,
              int workers)
      : config_(config), options_(options), batch_(batch), share_(batch / workers), rank_(rank) {
    if (options.lengths.empty()) {
      fixed_ = data::slice_rows(synthetic_batch(config, batch, options.seq, kSeed), rank * share_, share_);
      model::validate_batch(fixed_, config, "the synthetic batch");
    } else {
      dataset_ = synthetic_dataset(config, options.lengths, kSeed);
      lengths_.assign(options.lengths.begin(), options.lengths.end());
    }
  }

  // The batch of step k, and the useful flops of this worker's rows.
  const data::Batch& at(std::int64_t k, double& flops) {
    if (options_.lengths.empty()) {
      flops = model::batch_train_flops(config_, fixed_);
      return fixed_;
    }
    const auto n = static_cast<std::int64_t>(options_.lengths.size());
    std::vector<std::int64_t> mine, global;
    flops = 0;
    for (std::int64_t i = 0; i < batch_; ++i) {
      const std::int64_t row = (k * batch_ + i) % n;
      global.push_back(row);
      if (i / share_ == rank_) mine.push_back(row);
    }
    if (options_.balance_tokens) {
      const std::vector<std::int64_t> counts(static_cast<std::size_t>(batch_ / share_), share_);
      mine = data::balance_tokens(global, lengths_, counts)[static_cast<std::size_t>(rank_)];
    }
    current_ = data::collate(dataset_, mine, static_cast<std::size_t>(options_.seq), options_.padding,
                             static_cast<std::int32_t>(config_.pad_token_id), data::Target::kClass);
    model::validate_batch(current_, config_, "the synthetic batch");
    flops = model::batch_train_flops(config_, current_);
    return current_;
  }

  // A micro-batch's tokens on average: the worker's share of the batch x the mean length.
  std::int64_t mean_tokens() const {
    if (options_.lengths.empty()) return share_ * options_.seq;
    double sum = 0;
    for (const std::int32_t l : options_.lengths) sum += l;
    return static_cast<std::int64_t>(sum / static_cast<double>(options_.lengths.size()) *
                                     static_cast<double>(share_));
  }

 private:
  const model::BertConfig& config_;
  const TrainBenchOptions& options_;
  std::int64_t batch_, share_, rank_;
  data::Batch fixed_, current_;
  data::Dataset dataset_;
  std::vector<std::int64_t> lengths_;
};

train::EngineOptions engine_options(const TrainBenchOptions& options) {
  return train::EngineOptions{.adamw = {},
                              .shard_optimizer = options.shard_optimizer,
                              .overlap_exchange = options.overlap_exchange,
                              .bf16 = options.bf16,
                              .bf16_grads = options.bf16_grads};
}

}  // namespace

TrainBenchResult run_train_bench(comm::Communicator& communicator, const model::BertConfig& config,
                                 const TrainBenchOptions& options, std::int64_t batch) {
  const int P = communicator.size();
  const int rank = communicator.rank();
  if (batch % P != 0) fail_input("a batch of {} does not split over {} workers", batch, P);
  const model::ParamTable table = model::ParamTable::for_sequence_classification(config);
  train::StepEngine engine(config, table, communicator, engine_options(options));
  model::init_all_parameters(table, engine.params(), config, kSeed);
  engine.sync_parameters();

  StepBatches batches(config, options, batch, rank, P);
  const train::MachineRate rate = train::measure_machine_rate(communicator, config, batches.mean_tokens(), options.bf16);
  std::vector<float> step_s, forward, backward, exchange, optimizer, losses;
  double timed_flops = 0;
  double waited = 0;
  bool sane = true;
  communicator.barrier();
  for (int s = 0; s < options.warmup + options.steps; ++s) {
    const model::StepContext context{.train = true,
                                     .seed = kSeed,
                                     .rank = static_cast<std::uint64_t>(rank),
                                     .step = static_cast<std::uint64_t>(s)};
    double flops = 0;
    const data::Batch& mine = batches.at(s, flops);
    const auto start = Clock::now();
    const train::StepResult step = engine.step({&mine, 1}, {&context, 1}, kLearningRate, kMaxGradNorm);
    const double took = std::chrono::duration<double>(Clock::now() - start).count();
    sane = sane && std::isfinite(step.loss) && std::isfinite(step.grad_norm) && step.grad_norm > 0;
    losses.push_back(static_cast<float>(step.loss));
    float slowest = static_cast<float>(step.times.forward + step.times.backward);
    communicator.allreduce({&slowest, 1}, comm::ReduceOp::max);
    if (s < options.warmup) continue;
    timed_flops += flops;
    waited += std::max(0.0, static_cast<double>(slowest) - step.times.forward - step.times.backward);
    step_s.push_back(static_cast<float>(took));
    forward.push_back(static_cast<float>(step.times.forward));
    backward.push_back(static_cast<float>(step.times.backward));
    exchange.push_back(static_cast<float>(step.times.exchange));
    optimizer.push_back(static_cast<float>(step.times.optimizer));
  }

  communicator.allreduce(step_s, comm::ReduceOp::max);
  float all_flops = static_cast<float>(timed_flops);  // every worker's rows
  communicator.allreduce({&all_flops, 1}, comm::ReduceOp::sum);
  for (std::vector<float>* phase : {&forward, &backward, &exchange, &optimizer}) {
    communicator.allreduce(*phase, comm::ReduceOp::avg);
  }
  const std::size_t differ =
      count_disagreeing(communicator, losses) + count_disagreeing(communicator, engine.params());
  float failed = sane && differ == 0 ? 0.0f : 1.0f;
  communicator.allreduce({&failed, 1}, comm::ReduceOp::max);

  TrainBenchResult result;
  result.workers = P;
  result.threads = tensor::compute_threads();
  result.batch = batch;
  result.gemm_gflops = rate.of_run();
  result.gemm_tokens = rate.tokens;
  if (options.steps > 0) {
    result.step_s = median(step_s);
    result.samples_per_s = static_cast<double>(batch) / result.step_s;
    result.useful_flops = static_cast<double>(all_flops) / options.steps;
    if (!options.lengths.empty()) {
      // Steps differ in their tokens: the rate is the timed samples over the timed seconds.
      double total = 0;
      for (const float s : step_s) total += s;
      result.samples_per_s = static_cast<double>(batch) * options.steps / total;
    }
    result.forward_s = median(forward);
    result.backward_s = median(backward);
    result.exchange_s = median(exchange);
    result.optimizer_s = median(optimizer);
  }
  if (!losses.empty()) {
    result.first_loss = losses.front();
    result.last_loss = losses.back();
  }
  result.verified = failed == 0.0f;
  double total_step = 0;
  for (const float s : step_s) total_step += s;
  float wait_share = total_step > 0 ? static_cast<float>(waited / total_step) : 0.0f;
  communicator.allreduce({&wait_share, 1}, comm::ReduceOp::max);
  result.wait_share = wait_share;
  return result;
}

TrainBenchResult measure_configuration(const topo::Topology& topology,
                                       const TrainBenchConfiguration& configuration,
                                       const model::BertConfig& config, const TrainBenchOptions& options) {
  // Shared with the workers through fork: rank 0 writes its result here.
  void* mapping =
      mmap(nullptr, sizeof(TrainBenchResult), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) throw_errno("mmap for the benchmark's result");
  struct Unmap {
    void* address;
    ~Unmap() { munmap(address, sizeof(TrainBenchResult)); }
  } unmap{mapping};
  auto* shared = new (mapping) TrainBenchResult{};

  const int P = static_cast<int>(configuration.plan.workers.size());
  const model::ParamTable table = model::ParamTable::for_sequence_classification(config);
  launch::LaunchOptions launch_options;
  launch_options.arena_bytes = train::StepEngine::shared_arena_bytes(table, P, engine_options(options));
  launch_options.other_ranks_stdout = false;
  launch::launch_workers(topology, configuration.plan, launch_options, [&](launch::WorkerContext& context) {
    const TrainBenchResult result =
        run_train_bench(context.communicator, config, options, configuration.batch);
    if (context.rank == 0) *shared = result;
    return 0;
  });
  if (shared->workers != P)
    throw Error(fmt::format("bench train: the {} job returned no result", configuration.label));
  return *shared;
}

}  // namespace shmtrain::bench
