// Which configurations `shmtrain bench train` measures, each with its own placement plan.
#include <algorithm>

#include <fmt/format.h>

#include "shmtrain/bench/train_bench.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::bench {
namespace {

const std::vector<std::string>& all_ids() {
  static const std::vector<std::string> ids = {"1xall", "Pxpart", "1xpart", "1x1"};
  return ids;
}

std::string cores_text(int cores) { return fmt::format("{} core{}", cores, cores == 1 ? "" : "s"); }

// Same workers on the same cpus with the same threads, running the same batch: the same run.
bool same_run(const TrainBenchConfiguration& a, const TrainBenchConfiguration& b) {
  if (a.batch != b.batch || a.plan.workers.size() != b.plan.workers.size()) return false;
  for (std::size_t i = 0; i < a.plan.workers.size(); ++i) {
    if (a.plan.workers[i].cpus != b.plan.workers[i].cpus ||
        a.plan.workers[i].threads != b.plan.workers[i].threads) {
      return false;
    }
  }
  return true;
}

}  // namespace

TrainBenchPlan plan_train_bench(const topo::Topology& topology, const topo::PlacementOptions& placement,
                                const topo::PlacementPlan& plan, std::int64_t global_batch,
                                const std::vector<std::string>& ids) {
  for (const std::string& id : ids) {
    if (std::find(all_ids().begin(), all_ids().end(), id) == all_ids().end()) {
      fail_input("--configs: '{}' is not one of 1xall, Pxpart, 1xpart, 1x1", id);
    }
  }
  TrainBenchPlan out;
  out.workers = static_cast<int>(plan.workers.size());
  const int P = out.workers;
  if (global_batch < 1 || global_batch % P != 0) {
    fail_input("--batch {} must be a positive multiple of the {} workers: each takes batch / workers",
               global_batch, P);
  }
  const topo::PlacementEntry& first = plan.workers.front();
  const bool even = std::all_of(plan.workers.begin(), plan.workers.end(),
                                [&](const topo::PlacementEntry& w) { return w.threads == first.threads; });

  topo::PlacementOptions one_worker = placement;
  one_worker.nproc_per_node = 1;
  const topo::PlacementPlan all_cores = topo::make_plan(topology, one_worker);
  // One worker per core, without exchange cores, and the first of them alone: one core.
  topo::PlacementOptions per_core = placement;
  per_core.nproc_per_node = static_cast<int>(topology.cores().size());
  per_core.exchange_cores = 0;
  const topo::PlacementPlan one_core = topo::single_worker_plan(topo::make_plan(topology, per_core), 0);

  const std::vector<TrainBenchConfiguration> candidates = {
      {"1xall", fmt::format("1 x all cores ({})", all_cores.workers.front().cores), all_cores, global_batch},
      {"Pxpart", fmt::format("{} x {}", P, cores_text(first.cores)), plan, global_batch},
      {"1xpart", fmt::format("1 x {}, 1/{} batch", cores_text(first.cores), P),
       topo::single_worker_plan(plan, 0), global_batch / P},
      {"1x1", "1 x 1 core", one_core, global_batch},
  };
  for (const TrainBenchConfiguration& candidate : candidates) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), candidate.id) == ids.end()) continue;
    if (P == 1 && (candidate.id == "Pxpart" || candidate.id == "1xpart")) continue;
    const auto same = std::find_if(out.configurations.begin(), out.configurations.end(),
                                   [&](const TrainBenchConfiguration& c) { return same_run(c, candidate); });
    if (same != out.configurations.end()) {
      out.notes.push_back(fmt::format("{} is the same run as {}: measured once", candidate.id, same->id));
      continue;
    }
    out.configurations.push_back(candidate);
  }
  if (P == 1) {
    out.notes.push_back(
        "the plan has 1 worker: the P-worker rows are skipped; pass --nproc_per_node P (P > 1) to "
        "measure P workers");
  }
  if (!even) {
    out.notes.push_back(
        fmt::format("the {} workers hold different core counts: 1xpart runs on worker 0's {}, so the "
                    "scaling efficiency is approximate",
                    P, cores_text(first.cores)));
  }
  if (plan.oversubscribed)
    out.notes.push_back("the P workers share cores (oversubscribed): their rate says little");
  return out;
}

}  // namespace shmtrain::bench
