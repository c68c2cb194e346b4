#include "shmtrain/launch/job.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "shmtrain/tensor/threads.hpp"

namespace shmtrain::launch {
namespace {

bool shows_plan(ShowPlan show, int workers) {
  return show == ShowPlan::kAlways || (show == ShowPlan::kSeveralWorkers && workers > 1);
}

void print_now(const std::string& text) {
  fmt::print("{}", text);
  std::fflush(stdout);
}

WorkerFunction worker_of(JobBody& body) {
  return [&body](WorkerContext& context) { return body.work(context); };
}

// Forked workers, watched; a failed job is torn down (launch_workers returns only once every
// worker is gone) and started again up to max_restarts times.
void fork_workers(JobBody& body, const ResolvedJob& job, const topo::Topology& topology,
                  const topo::PlacementPlan& plan) {
  const WorkerFunction worker = worker_of(body);
  for (std::int64_t restart = 1;; ++restart) {
    try {
      launch_workers(topology, plan, job.launch, worker);
      return;
    } catch (const WorkerFailure& failure) {
      if (restart > job.max_restarts) throw;
      body.before_restart(failure, restart);
    }
  }
}

int run_on_this_host(JobBody& body) {
  ResolvedJob job = body.resolve();
  const topo::Topology topology = topo::Topology::load(job.source);
  const topo::PlacementPlan plan = topo::make_plan(topology, job.placement);
  const JobProcess process{.rank = 0,
                           .workers = static_cast<int>(plan.workers.size()),
                           .threads = plan.workers.front().threads,
                           .placement = plan.workers,
                           .mpi = nullptr};
  if (shows_plan(job.show_plan, process.workers)) print_now(topo::format_plan(plan));
  // Several workers' launcher prepares (tokenizes) on every CPU it may use; a lone worker on the
  // threads it works with.
  tensor::set_compute_threads(process.workers > 1 ? tensor::allowed_cpu_count() : process.threads);
  if (!body.prepare(process)) return 0;
  if (job.in_process && process.workers == 1 && job.max_restarts == 0) {
    return run_in_this_process(plan, worker_of(body));
  }
  // fork() copies only the calling thread.
  tensor::stop_compute_threads();
  job.launch.arena_bytes = body.arena_bytes(process);
  fork_workers(body, job, topology, plan);
  return 0;
}

int run_under_mpi(JobBody& body, int simulated_hosts) {
  MpiJob mpi(simulated_hosts);
  ResolvedJob job;
  mpi.together([&] { job = body.resolve(); });
  const topo::PlacementEntry& entry = mpi.place(job.source, job.placement);
  if (mpi.rank() == 0 && shows_plan(job.show_plan, mpi.size())) print_now(mpi.report());
  tensor::set_compute_threads(entry.threads);
  const JobProcess process{
      .rank = mpi.rank(), .workers = mpi.size(), .threads = entry.threads, .placement = {entry}, .mpi = &mpi};
  if (!body.prepare(process)) return 0;
  job.launch.arena_bytes = body.arena_bytes(process);
  return mpi.run(job.launch, worker_of(body));
}

}  // namespace

void JobProcess::together(const std::function<void()>& step) const {
  if (mpi != nullptr) {
    mpi->together(step);
  } else {
    step();
  }
}

std::string JobProcess::broadcast_text(const std::string& text) const {
  return mpi != nullptr ? mpi->broadcast_text(text) : text;
}

void JobBody::before_restart(const WorkerFailure&, std::int64_t) {}

int run_job(JobBody& body, int simulated_hosts) {
  return started_by_mpi_launcher() ? run_under_mpi(body, simulated_hosts) : run_on_this_host(body);
}

}  // namespace shmtrain::launch
