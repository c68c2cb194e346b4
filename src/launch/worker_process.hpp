#pragma once
// The child side of launch_workers(): everything between fork() and _exit().
#include <sys/types.h>

#include <span>
#include <vector>

#include "shmtrain/launch/launcher.hpp"

namespace shmtrain::launch {

struct WorkerSetup {
  const topo::Topology* topology;
  const topo::PlacementPlan* plan;
  const LaunchOptions* options;
  const WorkerFunction* function;
  std::span<std::byte> segment;
  pid_t launcher_pid;
  int rank;
  int stdout_fd;                  // -1: keep the launcher's
  int stderr_fd;                  // -1: keep the launcher's
  std::vector<int> fds_to_close;  // the launcher's descriptors this worker must not hold
};

// Never returns: runs the worker and ends the process with its exit code.
[[noreturn]] void run_worker_process(const WorkerSetup& setup);

}  // namespace shmtrain::launch
