#include "shmtrain/train/step_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/optim/clip.hpp"
#include "shmtrain/train/optimizer_slots.hpp"
#include "shmtrain/common/fault_injection.hpp"

namespace shmtrain::train {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

}  // namespace

void StepEngine::check_options(const EngineOptions& options) {
  if (options.bf16_grads && options.shard_optimizer) {
    throw InputError("--ddp_bf16_grads works with the replicated exchange, not with --shard_optimizer");
  }
}

std::size_t StepEngine::shared_arena_bytes(const model::ParamTable& table, int workers,
                                           const EngineOptions& options) {
  // comm.allocate() rounds each of the (at most two) allocations up to a cache line: a page of
  // slack for each is more than enough.
  constexpr std::size_t kAlignmentSlack = 2 * 4096;
  const auto padded = static_cast<std::size_t>(table.padded_count(workers));
  return padded * sizeof(float) + (options.bf16_grads ? padded * sizeof(tensor::bf16) : 0) + kAlignmentSlack;
}

StepEngine::StepEngine(const model::BertConfig& config, const model::ParamTable& table,
                       comm::Communicator& comm, EngineOptions options)
    : comm_(comm),
      options_(options),
      count_(static_cast<std::size_t>(table.count())),
      padded_(static_cast<std::size_t>(table.padded_count(comm.size()))),
      slice_(padded_ / static_cast<std::size_t>(comm.size())),
      params_(padded_, 0.0f),
      grads_(comm.allocate(padded_)),
      loss_buffer_(1) {
  check_options(options_);
  if (options_.shard_optimizer) {
    const auto begin = static_cast<std::int64_t>(slice_) * comm.rank();
    grad_slice_.assign(slice_, 0.0f);
    optimizer_.emplace(optimizer_slots(table), options_.adamw, state_allocator_, begin, begin + static_cast<std::int64_t>(slice_));
  } else {
    optimizer_.emplace(optimizer_slots(table), options_.adamw, state_allocator_);
  }
  model_.emplace(config, table, params(), grads_.first(count_));
  if (options_.bf16) {
    params16_.resize(count_);
    model_->set_bf16_weights(params16_);
    refresh_bf16_weights();
  }
  if (options_.bf16_grads && comm.size() > 1) {
    // padded_ is a multiple of 64: padded_ / 2 floats hold padded_ bf16 values.
    const std::span<float> storage = comm.allocate(padded_ / 2);
    grads_wire_ = std::span(reinterpret_cast<tensor::bf16*>(storage.data()), padded_);
  }
  if (!options_.shard_optimizer && options_.overlap_exchange && comm.size() > 1) {
    overlapped_.emplace(comm, grads_, comm::ReduceOp::avg, options_.bucket_floats, grads_wire_);
  }
}

void StepEngine::sync_parameters() {
  comm_.broadcast(params_, 0);
  refresh_bf16_weights();
}

void StepEngine::refresh_bf16_weights() {
  if (options_.bf16)
    tensor::convert_to_bf16(params16_.data(), params_.data(), static_cast<std::int64_t>(count_));
}

StepResult StepEngine::step(std::span<const data::Batch> micro_batches,
                            std::span<const model::StepContext> contexts, float lr, double max_grad_norm) {
  if (micro_batches.empty() || contexts.size() != micro_batches.size()) {
    throw Error(fmt::format("StepEngine::step: {} micro-batches with {} contexts", micro_batches.size(),
                            contexts.size()));
  }
  StepResult result;
  std::fill(grads_.begin(), grads_.end(), 0.0f);
  const float scale = 1.0f / static_cast<float>(micro_batches.size());
  double loss = 0;
  for (std::size_t i = 0; i < micro_batches.size(); ++i) {
    fault_point("forward", comm_.rank());
    const auto t0 = Clock::now();
    loss += model_->forward(micro_batches[i], contexts[i]);
    const auto t1 = Clock::now();
    fault_point("backward", comm_.rank());
    if (overlapped_ && i + 1 == micro_batches.size()) {
      // The last micro-batch completes each gradient: its buckets go out as backward finishes them.
      overlapped_->start();
      model_->backward(scale, [this](std::int64_t offset) { overlapped_->ready(static_cast<std::size_t>(offset)); });
    } else {
      model_->backward(scale);
    }
    result.times.forward += seconds_between(t0, t1);
    result.times.backward += seconds_between(t1, Clock::now());
  }
  loss_buffer_[0] = static_cast<float>(loss / static_cast<double>(micro_batches.size()));
  fault_point("exchange", comm_.rank());
  result.grad_norm = options_.shard_optimizer ? update_sharded(lr, max_grad_norm, result.times)
                                              : update_replicated(lr, max_grad_norm, result.times);
  // Small and after the update: it costs one short wait, and no worker can be a step ahead.
  if (comm_.size() > 1) comm_.allreduce(loss_buffer_, comm::ReduceOp::avg);
  result.loss = loss_buffer_[0];
  return result;
}

double StepEngine::update_replicated(float lr, double max_grad_norm, StepTimes& times) {
  const auto t0 = Clock::now();
  if (overlapped_) {
    overlapped_->finish();
  } else if (comm_.size() > 1 && !grads_wire_.empty()) {
    const auto n = static_cast<std::int64_t>(padded_);
    tensor::convert_to_bf16(grads_wire_.data(), grads_.data(), n);
    comm_.allreduce_bf16(grads_wire_, comm::ReduceOp::avg);
    tensor::convert_to_float(grads_.data(), grads_wire_.data(), n);
  } else if (comm_.size() > 1) {
    comm_.allreduce(grads_, comm::ReduceOp::avg);
  }
  const auto t1 = Clock::now();
  const double norm = optim::global_grad_norm(grads_);
  fault_point("optimizer", comm_.rank());
  optimizer_->step(params(), grads_.first(count_), lr, params16_,
                   optim::clip_coefficient(norm, max_grad_norm));
  times.exchange += seconds_between(t0, t1);
  times.optimizer += seconds_between(t1, Clock::now());
  return norm;
}

double StepEngine::update_sharded(float lr, double max_grad_norm, StepTimes& times) {
  const auto t0 = Clock::now();
  comm_.reduce_scatter(grads_, grad_slice_, comm::ReduceOp::avg);
  const auto t1 = Clock::now();
  // The global norm from every worker's sum of squares, added in rank order.
  const double own = optim::global_grad_norm(grad_slice_);
  std::vector<float> squares(static_cast<std::size_t>(comm_.size()), 0.0f);
  squares[static_cast<std::size_t>(comm_.rank())] = static_cast<float>(own * own);
  comm_.allreduce(squares, comm::ReduceOp::sum);
  double total = 0;
  for (float s : squares) total += s;
  const double norm = std::sqrt(total);
  fault_point("optimizer", comm_.rank());
  const std::span<float> own_params = std::span(params_).subspan(static_cast<std::size_t>(optimizer_->begin()), slice_);
  optimizer_->step(own_params, grad_slice_, lr, {}, optim::clip_coefficient(norm, max_grad_norm));
  comm_.allgather(own_params, params_);
  refresh_bf16_weights();
  times.exchange += seconds_between(t0, t1);
  times.optimizer += seconds_between(t1, Clock::now());
  return norm;
}

optim::AdamWState StepEngine::optimizer_state() {
  optim::AdamWState state;
  state.step = optimizer_->step_count();
  if (!options_.shard_optimizer) {
    state.exp_avg.assign(optimizer_->exp_avg().begin(), optimizer_->exp_avg().end());
    state.exp_avg_sq.assign(optimizer_->exp_avg_sq().begin(), optimizer_->exp_avg_sq().end());
    return state;
  }
  for (auto [mine, whole] : {std::pair{optimizer_->exp_avg(), &state.exp_avg},
                             std::pair{optimizer_->exp_avg_sq(), &state.exp_avg_sq}}) {
    whole->assign(padded_, 0.0f);
    comm_.allgather(mine, *whole);
    whole->resize(count_);
  }
  return state;
}

void StepEngine::set_optimizer_state(const optim::AdamWState& state) {
  if (state.exp_avg.size() != count_ || state.exp_avg_sq.size() != count_) {
    throw Error(fmt::format("StepEngine::set_optimizer_state: {} and {} floats for {} parameters",
                            state.exp_avg.size(), state.exp_avg_sq.size(), count_));
  }
  const auto begin = static_cast<std::size_t>(optimizer_->begin());
  for (auto [mine, whole] : {std::pair{optimizer_->exp_avg(), std::span<const float>(state.exp_avg)},
                             std::pair{optimizer_->exp_avg_sq(), std::span<const float>(state.exp_avg_sq)}}) {
    std::fill(mine.begin(), mine.end(), 0.0f);
    const std::size_t end = std::min(count_, begin + mine.size());
    if (end > begin) std::copy(whole.begin() + static_cast<std::ptrdiff_t>(begin),
                               whole.begin() + static_cast<std::ptrdiff_t>(end), mine.begin());
  }
  optimizer_->set_step_count(state.step);
}

}  // namespace shmtrain::train
