#pragma once
// One optimizer step of data-parallel training, shared by the trainer and `shmtrain bench
// train`: forward and backward of the step's micro-batches into the gradient arena, the
// exchange (gradients averaged over the workers), global-norm clipping and AdamW, with the
// step's time split into those phases.
//
// Two ways to update, the same result within rounding:
//   replicated (default)   all-reduce the gradients; every worker applies AdamW to every
//                          parameter and keeps the whole optimizer state.
//   sharded                reduce-scatter the gradients; worker r applies AdamW to its slice r
//                          of the arena (optimizer state for 1/P of the parameters), then the
//                          parameters are all-gathered.
// Replicated, the exchange overlaps backward: each layer's gradients are averaged as soon as
// backward is done with them (sharded, the reduce-scatter waits for the whole backward).
// Either way the parameters are identical on every worker after each step: the reductions
// are deterministic and every worker applies the same update to the same values.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/comm/overlapped_allreduce.hpp"
#include "shmtrain/data/batch.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"
#include "shmtrain/optim/adamw.hpp"
#include "shmtrain/tensor/allocator.hpp"

namespace shmtrain::train {

struct EngineOptions {
  optim::AdamWOptions adamw;
  bool shard_optimizer = false;
  // Replicated with several workers: all-reduce the gradients in buckets on an exchange thread
  // while backward still runs (comm/overlapped_allreduce.hpp); false: one all-reduce after it.
  bool overlap_exchange = true;
  std::size_t bucket_floats = std::size_t{1} << 20;  // smallest bucket: 4 MiB
  // --bf16: the model's GEMMs read a bf16 copy of the parameters, refreshed after every
  // update (the float parameters stay the master copy AdamW updates).
  bool bf16 = false;
  // --ddp_bf16_grads (replicated only): the gradients cross between workers as bf16, summed in
  // float and rounded once; the optimizer still gets float gradients.
  bool bf16_grads = false;
};

// Seconds per phase; exchange is what the step waited for the exchange (not hidden behind
// compute), optimizer covers clipping, AdamW and, when sharded, the parameters' all-gather.
struct StepTimes {
  double forward = 0;
  double backward = 0;
  double exchange = 0;
  double optimizer = 0;
  double total() const { return forward + backward + exchange + optimizer; }
};

struct StepResult {
  double loss = 0;       // mean over the global batch
  double grad_norm = 0;  // before clipping, over the averaged gradients
  StepTimes times;
};

class StepEngine {
 public:
  // Collective: every worker constructs it with the same table. The gradient arena comes from
  // comm.allocate() (the shared segment when the transport has one).
  StepEngine(const model::BertConfig& config, const model::ParamTable& table, comm::Communicator& comm,
             EngineOptions options);
  StepEngine(const StepEngine&) = delete;
  StepEngine& operator=(const StepEngine&) = delete;

  // Throws InputError for options that do not go together (bf16_grads with shard_optimizer).
  // The constructor checks too; a launcher calls it before it starts any worker.
  static void check_options(const EngineOptions& options);
  // The bytes `workers` engines allocate from their communicator (the launcher's shared arena
  // must hold them): the gradient arena and, with bf16_grads, its bf16 copy, plus alignment.
  static std::size_t shared_arena_bytes(const model::ParamTable& table, int workers,
                                        const EngineOptions& options);

  // table.count() floats: initialise or load here, then call sync_parameters().
  std::span<float> params() { return std::span(params_).first(count_); }
  // Collective: every worker takes rank 0's parameters, so that all start identical (and,
  // with bf16, refreshes their bf16 copy).
  void sync_parameters();

  model::EncoderModel& model() { return *model_; }

  // Collective. REQUIRES: at least one micro-batch, each validated against the config, and one
  // context per micro-batch. Backward scales each micro-batch's loss by 1 / their number.
  StepResult step(std::span<const data::Batch> micro_batches, std::span<const model::StepContext> contexts,
                  float lr, double max_grad_norm);

  // Collective when sharded (the slices are gathered): the state on every worker.
  optim::AdamWState optimizer_state();
  // Every worker passes the whole state; each keeps its part.
  void set_optimizer_state(const optim::AdamWState& state);

 private:
  double update_replicated(float lr, double max_grad_norm, StepTimes& times);
  double update_sharded(float lr, double max_grad_norm, StepTimes& times);
  void refresh_bf16_weights();

  comm::Communicator& comm_;
  EngineOptions options_;
  std::size_t count_;
  std::size_t padded_;
  std::size_t slice_;  // padded_ / workers
  std::vector<float> params_;  // padded_ floats
  std::vector<tensor::bf16> params16_;  // bf16: count_ values, the GEMMs' copy of params_
  std::span<float> grads_;     // padded_ floats, from comm.allocate()
  std::span<tensor::bf16> grads_wire_;  // bf16_grads: padded_ values, from comm.allocate()
  std::vector<float> grad_slice_;  // sharded: this worker's averaged slice
  tensor::HeapArenaAllocator state_allocator_;
  std::optional<optim::AdamW> optimizer_;
  std::optional<model::EncoderModel> model_;
  std::optional<comm::OverlappedAllreduce> overlapped_;  // engaged when the exchange overlaps backward
  std::vector<float> loss_buffer_;
};

}  // namespace shmtrain::train
