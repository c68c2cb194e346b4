// A one-worker job: the worker function runs in this process, on a LocalCommunicator.
#include "shmtrain/comm/local_communicator.hpp"
#include "shmtrain/launch/launcher.hpp"

namespace shmtrain::launch {

int run_in_this_process(const topo::PlacementPlan& plan, const WorkerFunction& worker) {
  comm::LocalCommunicator communicator;
  WorkerContext context{.rank = 0,
                        .world_size = 1,
                        .placement = plan.workers.front(),
                        .communicator = communicator,
                        .bound = false};
  return worker(context);
}

}  // namespace shmtrain::launch
