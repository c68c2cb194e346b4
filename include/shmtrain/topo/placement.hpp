#pragma once
// The placement plan: which CPUs, NUMA nodes and how many compute threads each worker gets.
//
// Default: one worker per package (socket), on its physical cores (one PU per core), with as
// many compute threads as cores. `nproc_per_node` (torchrun's name) asks for another count:
// a multiple of the unit count splits every unit evenly, any other count splits the core list
// (package-major) into contiguous runs, and more workers than cores oversubscribe (tests do
// this on small machines; the plan notes it).
#include <string>
#include <vector>

#include "shmtrain/topo/topology.hpp"

namespace shmtrain::topo {

enum class PlacementUnit { package, numa };

// Bounds on the counts a user can ask for, refused before anything is forked or allocated:
// the exchange's segment and the optimizer's sharding are laid out for at most 64 workers, and
// no worker runs more threads than the largest machines have hardware threads.
inline constexpr int kMaxWorkersPerMachine = 64;
inline constexpr int kMaxThreadsPerWorker = 4096;

struct PlacementOptions {
  int nproc_per_node = 0;  // 0: one worker per unit
  PlacementUnit unit = PlacementUnit::package;
  bool use_smt = false;    // bind to every hardware thread, not one per core
  int exchange_cores = 0;  // cores per worker kept free of compute threads
  int threads = 0;         // compute and exchange threads per worker (train's --threads); 0: as below
};

struct PlacementEntry {
  int rank = 0;
  int package = 0;              // package (socket) of its first core
  std::vector<int> numa_nodes;  // OS indices of the NUMA nodes its cpus belong to
  std::vector<int> cpus;        // OS indices of the PUs it is bound to
  int cores = 0;                // physical cores it holds
  int threads = 1;              // its threads, for compute and for the exchange's reductions:
                                // PlacementOptions::threads, else its cores (or PUs with SMT)
                                // minus exchange cores
};

struct PlacementPlan {
  std::vector<PlacementEntry> workers;
  bool bind = false;            // false when the topology is not this machine
  bool oversubscribed = false;  // more workers than cores: workers share cores
  std::string topology_description;
  std::vector<std::string> notes;  // what the user should know about the plan, one line each
};

// Throws InputError for option values the topology cannot satisfy.
PlacementPlan make_plan(const Topology& topology, const PlacementOptions& options);

// Worker `rank` of `plan` on its own: a one-worker plan on the same cpus, NUMA nodes and thread
// count (what one worker of a P-worker job would run alone, for scaling measurements).
// Throws InputError when `rank` is not in the plan.
PlacementPlan single_worker_plan(const PlacementPlan& plan, int rank);

// The plan as a table, one row per worker, then the notes.
std::string format_plan(const PlacementPlan& plan);

// Parses "package" or "numa". Throws InputError.
PlacementUnit parse_placement_unit(const std::string& text);

}  // namespace shmtrain::topo
