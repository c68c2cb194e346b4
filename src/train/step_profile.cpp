#include "step_profile.hpp"

#include <algorithm>

namespace shmtrain::train {

void StepProfile::add_step(comm::Communicator& comm, const StepTimes& times, double tokens, double flops) {
  const double compute = times.forward + times.backward;
  float slowest = static_cast<float>(compute);
  if (comm.size() > 1) comm.allreduce({&slowest, 1}, comm::ReduceOp::max);
  const double wait = std::max(0.0, static_cast<double>(slowest) - compute);
  sums_.forward += times.forward;
  sums_.backward += times.backward;
  sums_.exchange += std::max(0.0, times.exchange - wait);
  sums_.optimizer += times.optimizer;
  sums_.wait += wait;
  stepped_ += times.total();
  ++steps_;
  tokens_ += tokens;
  flops_ += flops;
}

StepProfile::Window StepProfile::take(comm::Communicator& comm) {
  const double per = steps_ > 0 ? 1.0 / static_cast<double>(steps_) : 0.0;
  constexpr std::size_t kFields = 9;
  const float mine[kFields] = {static_cast<float>(sums_.forward * per),
                               static_cast<float>(sums_.backward * per),
                               static_cast<float>(sums_.exchange * per),
                               static_cast<float>(sums_.optimizer * per),
                               static_cast<float>(sums_.data * per),
                               static_cast<float>(sums_.wait * per),
                               static_cast<float>(stepped_ > 0 ? sums_.wait / stepped_ : 0.0),
                               static_cast<float>(tokens_),
                               static_cast<float>(flops_ * 1e-9)};
  const auto size = static_cast<std::size_t>(comm.size());
  std::vector<float> all(kFields * size);
  if (size > 1) {
    comm.allgather(mine, all);
  } else {
    std::copy(std::begin(mine), std::end(mine), all.begin());
  }
  Window window;
  for (std::size_t r = 0; r < size; ++r) {
    const float* f = &all[r * kFields];
    window.workers.push_back(WorkerSeconds{f[0], f[1], f[2], f[3], f[4], f[5]});
    window.wait_shares.push_back(f[6]);
    window.tokens += f[7];
    window.flops += static_cast<double>(f[8]) * 1e9;
  }
  sums_ = WorkerSeconds{};
  stepped_ = 0;
  steps_ = 0;
  tokens_ = 0;
  flops_ = 0;
  return window;
}

}  // namespace shmtrain::train
