#pragma once
// Internal to train: where each worker's steps go, per logging window, for the log records'
// "workers" (seconds per step in forward, backward, exposed exchange, optimizer, data
// assembly, and waiting for the slowest worker), tokens per second and achieved GFLOP/s.
//
// A step ends in the exchange, so the worker whose forward and backward finish first waits
// there for the slowest: its wait is the slowest worker's compute time minus its own, and the
// exchange time it measured beyond that wait is the exchange itself, not overlapped with
// backward (exposed). With packed batches the workers' micro-batches differ in tokens, and
// this wait is what --balance_tokens shrinks.
#include <cstdint>
#include <vector>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/train/step_engine.hpp"

namespace shmtrain::train {

struct WorkerSeconds {
  double forward = 0;
  double backward = 0;
  double exchange = 0;  // exposed: beyond the wait for the slowest worker
  double optimizer = 0;
  double data = 0;  // assembling the step's batches
  double wait = 0;  // for the slowest worker's forward and backward
};

class StepProfile {
 public:
  void add_data(double seconds) { sums_.data += seconds; }
  // Collective, once per step: the engine's split of this worker's step, its tokens and FLOPs.
  void add_step(comm::Communicator& comm, const StepTimes& times, double tokens, double flops);

  struct Window {
    std::vector<WorkerSeconds> workers;  // rank order: means per step over the window
    std::vector<double> wait_shares;     // rank order: wait / step time
    double tokens = 0;                   // every worker's, summed
    double flops = 0;
  };
  // Collective: the window since the last call, and starts a new one.
  Window take(comm::Communicator& comm);

 private:
  WorkerSeconds sums_;
  double stepped_ = 0;
  std::int64_t steps_ = 0;
  double tokens_ = 0;
  double flops_ = 0;
};

}  // namespace shmtrain::train
