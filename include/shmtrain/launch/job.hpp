#pragma once
// One job, from its options to its workers' exit, on this machine or as one rank of a job an
// MPI launcher started: the one path of every command that runs a job's workers (`train`,
// `bench allreduce`). The steps, in this order on both paths:
//
//   resolve    the body reads its options into a ResolvedJob (under MPI on every rank, together:
//              a bad option is reported once, by rank 0)
//   placement  one host: the plan over this machine's topology, printed as the job asks;
//              under MPI: this rank placed and bound (MpiJob::place), rank 0 prints the table
//   threads    the compute threads this process prepares with: a rank's or a lone worker's own
//              count, every allowed CPU in a launcher that forks (stopped again before the fork)
//   prepare    the body reads its inputs (JobProcess::together where every rank must agree)
//   arena      the shared arena each worker allocates from, as the body sizes it
//   run        the body's work on every worker: in this process (ResolvedJob::in_process, one
//              worker), forked and watched (launch_workers; a failed job restarted up to
//              max_restarts times), or as this rank (MpiJob::run)
//
// launch knows no trainer: what the job is (its options, inputs, arena and work) is the body's,
// a JobBody the caller implements over train or bench. The bf16 rule is the body's too
// (tensor/cpu_features.hpp, asked while it prepares): launch runs no kernel.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "shmtrain/launch/launcher.hpp"
#include "shmtrain/launch/mpi_job.hpp"
#include "shmtrain/topo/placement.hpp"
#include "shmtrain/topo/topology.hpp"

namespace shmtrain::launch {

// When the placement is printed (the plan on one host, MpiJob::report() under MPI).
enum class ShowPlan { kAlways, kSeveralWorkers, kNever };

struct ResolvedJob {
  topo::TopologySource source;
  topo::PlacementOptions placement;  // unit and threads (per worker) included
  ShowPlan show_plan = ShowPlan::kAlways;
  // On one host, a one-worker job with no restarts runs in this process, unbound, on a
  // LocalCommunicator (launcher.hpp's run_in_this_process); false: always forked.
  bool in_process = false;
  std::int64_t max_restarts = 0;  // on one host: torchrun's --max_restarts
  LaunchOptions launch;           // arena_bytes is set from JobBody::arena_bytes
};

// What the process that prepares knows of the job: the launcher on one host (it prepares once
// for every worker, which inherit it through fork), each rank under MPI.
struct JobProcess {
  int rank = 0;     // this rank under MPI; 0 on one host
  int workers = 1;  // the job's size
  int threads = 1;  // each worker's compute threads
  // The workers this process knows: every one on one host, this rank's own under MPI.
  std::vector<topo::PlacementEntry> placement;
  MpiJob* mpi = nullptr;  // the MPI job, under MPI

  // Under MPI MpiJob::together (every rank runs `step`; a failure is reported once); else step().
  void together(const std::function<void()>& step) const;
  // Rank 0's text on every rank under MPI; `text` on one host.
  std::string broadcast_text(const std::string& text) const;
};

// The caller's part of a job. Methods run in the order of the steps above; work() runs in each
// worker (a forked child, this process, or this rank), after prepare() in the process it forks
// from.
class JobBody {
 public:
  virtual ~JobBody() = default;
  virtual ResolvedJob resolve() = 0;
  // Returns false when nothing is to run (a dry run): run_job then returns 0.
  virtual bool prepare(const JobProcess& process) = 0;
  virtual std::size_t arena_bytes(const JobProcess& process) = 0;
  // The worker's exit code (0: success), as a WorkerFunction's.
  virtual int work(WorkerContext& context) = 0;
  // On one host, before restart `restart` (1..max_restarts) of a job that failed with `failure`.
  virtual void before_restart(const WorkerFailure& failure, std::int64_t restart);
};

// Runs the job: as a rank of an MPI job when an MPI launcher started this process
// (started_by_mpi_launcher(); simulated_hosts as MpiJob's), else on this machine. Returns the
// job's exit code: the largest of every rank's under MPI, the worker's in this process, 0 when
// the forked workers all succeeded. Throws as launch_workers and MpiJob do, and what the body
// throws.
int run_job(JobBody& body, int simulated_hosts = 0);

}  // namespace shmtrain::launch
