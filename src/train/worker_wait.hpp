#pragma once
// Internal to train: how long each worker waited for the others. A step ends in the exchange,
// so the worker whose forward and backward finish first waits there for the slowest: its wait
// in a step is the slowest worker's compute time minus its own. With packed batches the
// workers' micro-batches differ in tokens, and this is what --balance_tokens shrinks.
#include <vector>

#include "shmtrain/comm/communicator.hpp"

namespace shmtrain::train {

class WorkerWait {
 public:
  // Collective, once per step: this worker's forward + backward seconds and its whole step's.
  void add_step(comm::Communicator& comm, double compute_seconds, double step_seconds);
  // Collective: each worker's wait since the last call, as a share of its step time (rank
  // order, 0 where no step ran), and starts a new window.
  std::vector<double> take_shares(comm::Communicator& comm);

 private:
  double waited_ = 0;
  double stepped_ = 0;
};

}  // namespace shmtrain::train
