#include "worker_wait.hpp"

namespace shmtrain::train {

void WorkerWait::add_step(comm::Communicator& comm, double compute_seconds, double step_seconds) {
  float slowest = static_cast<float>(compute_seconds);
  if (comm.size() > 1) comm.allreduce({&slowest, 1}, comm::ReduceOp::max);
  waited_ += static_cast<double>(slowest) - compute_seconds > 0
                 ? static_cast<double>(slowest) - compute_seconds
                 : 0.0;
  stepped_ += step_seconds;
}

std::vector<double> WorkerWait::take_shares(comm::Communicator& comm) {
  const float mine = stepped_ > 0 ? static_cast<float>(waited_ / stepped_) : 0.0f;
  std::vector<float> all(static_cast<std::size_t>(comm.size()), mine);
  if (comm.size() > 1) comm.allgather({&mine, 1}, all);
  waited_ = 0;
  stepped_ = 0;
  return std::vector<double>(all.begin(), all.end());
}

}  // namespace shmtrain::train
