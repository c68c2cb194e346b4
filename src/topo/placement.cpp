#include "shmtrain/topo/placement.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::topo {
namespace {

using CoreGroup = std::vector<const Core*>;

std::vector<CoreGroup> group_by_unit(const std::vector<Core>& cores, PlacementUnit unit) {
  std::map<int, CoreGroup> groups;
  for (const Core& core : cores) {
    groups[unit == PlacementUnit::package ? core.package : core.numa_node].push_back(&core);
  }
  std::vector<CoreGroup> out;
  for (auto& [key, group] : groups) out.push_back(std::move(group));
  return out;
}

// Splits `cores` into `parts` contiguous runs whose sizes differ by at most one.
std::vector<CoreGroup> split_evenly(const CoreGroup& cores, int parts) {
  std::vector<CoreGroup> out;
  const std::size_t n = cores.size();
  for (int p = 0; p < parts; ++p) {
    const std::size_t begin = n * static_cast<std::size_t>(p) / static_cast<std::size_t>(parts);
    const std::size_t end = n * static_cast<std::size_t>(p + 1) / static_cast<std::size_t>(parts);
    out.emplace_back(cores.begin() + static_cast<std::ptrdiff_t>(begin),
                     cores.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return out;
}

PlacementEntry make_entry(int rank, const CoreGroup& cores, const PlacementOptions& options) {
  PlacementEntry entry;
  entry.rank = rank;
  entry.package = cores.front()->package;
  entry.cores = static_cast<int>(cores.size());
  std::set<int> nodes;
  for (const Core* core : cores) {
    nodes.insert(core->numa_node);
    if (options.use_smt) {
      entry.cpus.insert(entry.cpus.end(), core->pus.begin(), core->pus.end());
    } else {
      entry.cpus.push_back(core->pus.front());
    }
  }
  std::sort(entry.cpus.begin(), entry.cpus.end());
  entry.numa_nodes.assign(nodes.begin(), nodes.end());
  const int compute_units = options.use_smt ? static_cast<int>(entry.cpus.size()) : entry.cores;
  entry.threads = options.threads > 0 ? options.threads : std::max(1, compute_units - options.exchange_cores);
  return entry;
}

}  // namespace

PlacementUnit parse_placement_unit(const std::string& text) {
  if (text == "package" || text == "socket") return PlacementUnit::package;
  if (text == "numa") return PlacementUnit::numa;
  fail_input("placement unit '{}' is unknown: use package or numa", text);
}

PlacementPlan make_plan(const Topology& topology, const PlacementOptions& options) {
  if (options.nproc_per_node < 0) fail_input("--nproc_per_node must be >= 0, not {}", options.nproc_per_node);
  if (options.exchange_cores < 0) fail_input("--exchange_cores must be >= 0, not {}", options.exchange_cores);
  if (options.threads < 0) fail_input("--threads must be >= 1, not {}", options.threads);
  if (options.nproc_per_node > kMaxWorkersPerMachine) {
    fail_input("--nproc_per_node {}: shmtrain runs at most {} workers on one machine", options.nproc_per_node,
               kMaxWorkersPerMachine);
  }
  if (options.threads > kMaxThreadsPerWorker) {
    fail_input("--threads {}: a worker runs at most {} threads", options.threads, kMaxThreadsPerWorker);
  }

  PlacementPlan plan;
  plan.bind = topology.is_this_system();
  plan.topology_description = topology.description();
  if (!plan.bind)
    plan.notes.push_back(fmt::format("binding skipped: the {} is not this machine", topology.description()));

  const std::vector<CoreGroup> units = group_by_unit(topology.cores(), options.unit);
  const int unit_count = static_cast<int>(units.size());
  const int workers = options.nproc_per_node > 0 ? options.nproc_per_node : unit_count;
  const int core_count = static_cast<int>(topology.cores().size());

  std::vector<CoreGroup> groups;
  if (workers > core_count) {
    // More workers than cores: worker i shares core i mod cores. Useful for tests only.
    plan.oversubscribed = true;
    for (int i = 0; i < workers; ++i)
      groups.push_back({&topology.cores()[static_cast<std::size_t>(i % core_count)]});
    plan.notes.push_back(fmt::format("oversubscribed: {} workers on {} cores share cores; expect low speed",
                                     workers, core_count));
  } else if (workers % unit_count == 0 && std::all_of(units.begin(), units.end(), [&](const CoreGroup& u) {
               return static_cast<int>(u.size()) >= workers / unit_count;
             })) {
    for (const CoreGroup& unit : units) {
      for (CoreGroup& part : split_evenly(unit, workers / unit_count)) groups.push_back(std::move(part));
    }
  } else {
    CoreGroup all;
    for (const Core& core : topology.cores()) all.push_back(&core);
    groups = split_evenly(all, workers);
    plan.notes.push_back(
        fmt::format("{} workers do not divide the {} {}s evenly: some workers span units or "
                    "hold one core more than others",
                    workers, unit_count, options.unit == PlacementUnit::package ? "package" : "NUMA node"));
  }

  for (int rank = 0; rank < workers; ++rank) {
    plan.workers.push_back(make_entry(rank, groups[static_cast<std::size_t>(rank)], options));
    const PlacementEntry& entry = plan.workers.back();
    const int compute_units = options.use_smt ? static_cast<int>(entry.cpus.size()) : entry.cores;
    if (options.exchange_cores > 0 && options.exchange_cores >= compute_units) {
      fail_input("--exchange_cores {} leaves worker {} no compute core: it holds {}", options.exchange_cores,
                 rank, compute_units);
    }
  }
  return plan;
}

PlacementPlan single_worker_plan(const PlacementPlan& plan, int rank) {
  if (rank < 0 || rank >= static_cast<int>(plan.workers.size())) {
    fail_input("worker {} is not in a plan of {} worker(s)", rank, plan.workers.size());
  }
  PlacementPlan single;
  single.workers.push_back(plan.workers[static_cast<std::size_t>(rank)]);
  single.workers.front().rank = 0;
  single.bind = plan.bind;
  single.topology_description = plan.topology_description;
  // make_plan's first note on an unbound plan says why binding is skipped; the rest are about
  // how the workers share the machine, which no longer applies.
  if (!plan.bind && !plan.notes.empty()) single.notes.push_back(plan.notes.front());
  return single;
}

std::string format_plan(const PlacementPlan& plan) {
  std::string out = fmt::format("{:>4}  {:>7}  {:>6}  {:>5}  {:>7}  {}\n", "rank", "package", "numa", "cores",
                                "threads", "cpus");
  for (const PlacementEntry& w : plan.workers) {
    out += fmt::format("{:>4}  {:>7}  {:>6}  {:>5}  {:>7}  {}\n", w.rank, w.package,
                       format_cpu_list(w.numa_nodes), w.cores, w.threads, format_cpu_list(w.cpus));
  }
  for (const std::string& note : plan.notes) out += fmt::format("note: {}\n", note);
  return out;
}

}  // namespace shmtrain::topo
