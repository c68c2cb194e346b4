// `shmtrain topo`: the machine as shmtrain sees it and the placement plan; with
// --check_binding, starts the workers and has each report the CPUs it actually runs on.
#include <sched.h>

#include <memory>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "shmtrain/cli/commands.hpp"
#include "shmtrain/cli/placement_flags.hpp"
#include "shmtrain/launch/launcher.hpp"
#include "shmtrain/tensor/threads.hpp"

namespace shmtrain::cli {
namespace {

std::vector<int> affinity_of_this_process() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) throw_errno("sched_getaffinity");
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

// Each worker sends (rank, compute threads, affinity bitmap of the first 64 cpus) to every
// rank; rank 0 prints them next to the plan. Non-zero when a bound worker runs elsewhere.
int check_binding(const launch::WorkerContext& context, const topo::PlacementPlan& plan) {
  constexpr int kCpus = 64;
  std::vector<float> mine(2 + kCpus, 0.0f);
  mine[0] = static_cast<float>(context.rank);
  mine[1] = static_cast<float>(tensor::compute_threads());
  for (int cpu : affinity_of_this_process()) {
    if (cpu < kCpus) mine[static_cast<std::size_t>(2 + cpu)] = 1.0f;
  }
  std::vector<float> all(mine.size() * static_cast<std::size_t>(context.world_size));
  context.communicator.allgather(mine, all);
  if (context.rank != 0) return 0;
  fmt::print("{:>4}  {:>7}  {:>12}  {}\n", "rank", "threads", "planned cpus", "running on cpus");
  int wrong = 0;
  for (int r = 0; r < context.world_size; ++r) {
    const float* row = all.data() + static_cast<std::size_t>(r) * mine.size();
    std::vector<int> cpus;
    for (int cpu = 0; cpu < kCpus; ++cpu) {
      if (row[2 + cpu] != 0.0f) cpus.push_back(cpu);
    }
    const std::vector<int>& planned = plan.workers[static_cast<std::size_t>(r)].cpus;
    fmt::print("{:>4}  {:>7}  {:>12}  {}\n", static_cast<int>(row[0]), static_cast<int>(row[1]),
               topo::format_cpu_list(planned), topo::format_cpu_list(cpus));
    if (plan.bind && cpus != planned) ++wrong;
  }
  if (wrong > 0) fmt::print(stderr, "shmtrain: error: {} worker(s) run on other cpus than planned\n", wrong);
  return wrong > 0 ? 1 : 0;
}

}  // namespace

Command add_topo_command(CLI::App& app) {
  auto flags = std::make_shared<PlacementFlags>();
  auto check = std::make_shared<bool>(false);
  CLI::App* sub = app.add_subcommand("topo", "Print the machine's topology and the worker placement plan");
  add_placement_flags(*sub, *flags);
  sub->add_flag("--check_binding", *check,
                "Start the workers and print the cpus and thread count each one actually got");
  return {sub, [flags, check] {
    const ResolvedPlacement resolved = resolve_placement(*flags);
    fmt::print("{}", resolved.topology.summary());
    fmt::print("plan: {} worker(s), {}\n", resolved.plan.workers.size(),
               resolved.plan.bind ? "bound to their cpus and NUMA nodes" : "not bound (binding skipped)");
    fmt::print("{}", topo::format_plan(resolved.plan));
    if (!*check) return 0;
    std::fflush(stdout);
    const topo::PlacementPlan& plan = resolved.plan;
    launch::launch_workers(resolved.topology, plan, {}, [&plan](launch::WorkerContext& context) {
      return check_binding(context, plan);
    });
    return 0;
  }};
}

}  // namespace shmtrain::cli
