#pragma once
// Starts the job's workers on one machine and watches them: the library API behind every
// subcommand that runs workers (`shmtrain topo --check_binding`, `shmtrain bench allreduce`, and
// the trainer).
//
// launch_workers() maps the job's segment (anonymous shared memory: nothing in /dev/shm, and
// nothing of it outlives the job, even a launcher killed with SIGKILL), forks one worker per
// plan entry, and in each: sets PR_SET_PDEATHSIG (a launcher killed with SIGKILL takes its
// workers along), binds CPUs and memory to the entry (when the plan binds), sets the compute
// thread count, builds the worker's ShmCommunicator and calls the worker function. The launcher then supervises with waitpid:
// the first abnormal exit raises the job's abort flag (peers waiting in a collective stop with a
// PeerFailure and exit with their own message), SIGTERMs those still running a second later,
// SIGKILLs them after the grace period, and throws WorkerFailure naming the worker. A worker
// that stalls (stopped by SIGSTOP or a debugger, stuck in D state, thrashing) is told from one
// that is only busy by its heartbeat (comm/shm/heartbeat.hpp): once it has stood still for
// comm.transport.stall_timeout (--ddp_timeout), the launcher SIGKILLs that worker and stops the
// job the same way, naming it with its process state; its peers waiting for it in a collective
// see the same and stop on their own. Ctrl-C (SIGINT), SIGTERM and SIGHUP stop the job the same
// way and throw Interrupted. Rank 0 writes to the launcher's stdout and stderr; other ranks'
// lines come through the launcher prefixed with "[rank r] ".
//
// REQUIRES: no thread runs in the calling process (fork copies only the calling thread; TBB
// and OpenBLAS threads started before would be missing in the workers). Checked.
#include <chrono>
#include <functional>
#include <string>
#include <sys/types.h>

#include "shmtrain/comm/communicator.hpp"
#include "shmtrain/comm/shm/segment.hpp"
#include "shmtrain/comm/shm/shm_communicator.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/topo/placement.hpp"
#include "shmtrain/topo/topology.hpp"

namespace shmtrain::launch {

// Exit codes of a worker process besides the worker function's own.
inline constexpr int kExitFailed = 1;        // the worker function threw
inline constexpr int kExitPeerFailure = 3;   // stopped because a peer died or the job aborted
inline constexpr int kExitSetupFailed = 4;   // binding or communicator set-up failed
inline constexpr int kExitOrphaned = 5;      // the launcher died before the worker started

struct WorkerContext {
  int rank = 0;
  int world_size = 1;
  const topo::PlacementEntry& placement;
  comm::Communicator& communicator;
  bool bound = false;  // CPU (and, with several NUMA nodes, memory) binding was applied
};

// Returns the worker's exit code (0: success). Exceptions are printed and end the worker with
// kExitFailed, or kExitPeerFailure for a comm::PeerFailure.
using WorkerFunction = std::function<int(WorkerContext&)>;

struct LaunchOptions {
  std::size_t slot_bytes = std::size_t{4} << 20;  // copy-in slice per rank and slot
  std::size_t arena_bytes = 0;                    // per worker, for Communicator::allocate
  // threads are taken from the plan; transport.stall_timeout is --ddp_timeout, for the
  // workers' waits and the launcher's watch alike
  comm::ShmOptions comm;
  // Under MPI: how long a wait between hosts may make no progress (no heartbeat crosses hosts,
  // so a host busy saving looks like a stuck one); --ddp_timeout when given, else 1800 s.
  std::chrono::seconds between_hosts_timeout{1800};
  std::chrono::milliseconds grace{std::chrono::seconds(3)};  // SIGTERM to SIGKILL
  bool other_ranks_stdout = true;                 // false: only rank 0's stdout (stderr always)
};

// A worker ended abnormally; what() reads "worker 1 (pid 4242, socket 1) killed by signal 9 (Killed)".
class WorkerFailure : public Error {
 public:
  WorkerFailure(const std::string& message, int rank, pid_t pid) : Error(message), rank_(rank), pid_(pid) {}
  int rank() const { return rank_; }
  pid_t pid() const { return pid_; }

 private:
  int rank_;
  pid_t pid_;
};

// The job was stopped by SIGINT, SIGTERM or SIGHUP to the launcher.
class Interrupted : public Error {
 public:
  Interrupted(const std::string& message, int signal_number) : Error(message), signal_(signal_number) {}
  int signal_number() const { return signal_; }

 private:
  int signal_;
};

// Returns when every worker exited with 0. Throws WorkerFailure, Interrupted, or Error / SystemError
// when the job could not start; on every path the workers are gone and the segment unmapped.
void launch_workers(const topo::Topology& topology, const topo::PlacementPlan& plan, const LaunchOptions& options,
                    const WorkerFunction& worker);

// The plan's one worker in this process, unbound, on a LocalCommunicator (nothing to exchange);
// returns the worker's exit code. Exceptions propagate to the caller.
// REQUIRES: plan.workers.size() == 1.
int run_in_this_process(const topo::PlacementPlan& plan, const WorkerFunction& worker);

// "exited with status 3", "killed by signal 9 (Killed)".
std::string describe_wait_status(int status);

}  // namespace shmtrain::launch
