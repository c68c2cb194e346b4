#pragma once
// The launcher side after fork(): one poll loop over a signalfd (SIGCHLD, SIGINT, SIGTERM,
// SIGHUP) and the pipes of ranks > 0, without threads. It also watches every worker's heartbeat
// in the segment (comm/shm/heartbeat.hpp): a worker whose heartbeat stands still for the stall
// timeout is killed, and named as the job's failure. Decides the job's outcome.
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <span>
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
  bool killed_stalled = false;  // the supervisor SIGKILLed it for a stalled heartbeat
  bool sent_term = false;       // the supervisor sent it SIGTERM / SIGKILL while stopping the job
  bool sent_kill = false;
};

struct Outcome {
  // "worker 1 (pid 4242, socket 1) killed by signal 9 (Killed)", "worker 1 (pid 4242, socket 1) has
  // not made progress for 30 s (state: stopped, T); ..."
  std::optional<std::string> failure;
  int failed_rank = -1;
  pid_t failed_pid = -1;
  int interrupt_signal = 0;            // set when SIGINT/SIGTERM/SIGHUP stopped the job
};

struct SuperviseOptions {
  std::chrono::milliseconds grace;          // SIGTERM to SIGKILL
  std::chrono::milliseconds stall_timeout;  // a heartbeat standing still this long is a stalled worker
  bool other_ranks_stdout = true;
};

// Supervises until every child is reaped and its pipes are drained. `children` are running, rank
// r's control block in `segment` is child r's.
Outcome supervise(std::vector<ChildProcess>& children, std::span<std::byte> segment, int signal_fd,
                  const SuperviseOptions& options);

// Stops children still running: SIGTERM, then SIGKILL after `grace`, reaping them all.
void stop_children(std::vector<ChildProcess>& children, std::chrono::milliseconds grace) noexcept;

}  // namespace shmtrain::launch
