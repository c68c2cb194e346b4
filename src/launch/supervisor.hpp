#pragma once
// The launcher side after fork(): one poll loop over a signalfd (SIGCHLD, SIGINT, SIGTERM,
// SIGHUP) and the pipes of ranks > 0, without threads. Decides the job's outcome.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "shmtrain/comm/shm/segment.hpp"

namespace shmtrain::launch {

struct ChildProcess {
  int rank = 0;
  pid_t pid = -1;
  int package = 0;
  bool running = true;
  int stdout_fd = -1;  // read ends; -1 when not piped or closed
  int stderr_fd = -1;
  std::string stdout_partial;
  std::string stderr_partial;
};

struct Outcome {
  std::optional<std::string> failure;  // "worker 1 (pid 4242, socket 1) killed by signal 9 (Killed)"
  int failed_rank = -1;
  pid_t failed_pid = -1;
  int interrupt_signal = 0;            // set when SIGINT/SIGTERM/SIGHUP stopped the job
};

// Supervises until every child is reaped and its pipes are drained. `children` are running.
Outcome supervise(std::vector<ChildProcess>& children, comm::SegmentHeader& header, int signal_fd,
                  std::chrono::milliseconds grace, bool other_ranks_stdout);

// Stops children still running: SIGTERM, then SIGKILL after `grace`, reaping them all.
void stop_children(std::vector<ChildProcess>& children, std::chrono::milliseconds grace) noexcept;

}  // namespace shmtrain::launch
