#pragma once
// Where a worker that an MPI launcher started runs. The launcher forks nothing here: each
// rank places itself, as the fork launcher would have placed worker `machine_rank` of
// `machine_size` on this machine (one per socket by default), and binds with hwloc. When the
// MPI launcher already bound the process (Open MPI's --bind-to, Intel MPI's pinning), that
// binding is kept and the entry describes it instead.
#include <string>

#include "shmtrain/topo/placement.hpp"
#include "shmtrain/topo/topology.hpp"

namespace shmtrain::launch {

struct RankPlacement {
  topo::PlacementEntry entry;  // rank is machine_rank; cpus, NUMA nodes and threads in force
  bool bound = false;          // CPU (and memory) binding is in force, ours or the launcher's
  std::string binding;         // "shmtrain (hwloc)", "kept from the MPI launcher", "none: ..."
};

// REQUIRES: 0 <= machine_rank < machine_size, the ranks that share this machine. `options`
// are the placement flags (nproc_per_node is taken from machine_size). Throws InputError for
// flags the machine cannot satisfy, SystemError when binding fails.
RankPlacement place_rank(const topo::TopologySource& source, topo::PlacementOptions options, int machine_rank,
                         int machine_size);

}  // namespace shmtrain::launch
