#pragma once
// Binding a worker to its place in the plan, through hwloc (only topo sees hwloc).
#include "shmtrain/topo/placement.hpp"
#include "shmtrain/topo/topology.hpp"

namespace shmtrain::topo {

// Binds this process to the entry's CPUs (and NUMA nodes when there are several). Throws
// SystemError when CPU binding fails, Error when the topology is not this machine; a failed
// memory binding is printed as a warning (containers often forbid it).
void bind_this_process(const Topology& topology, const PlacementEntry& entry);

}  // namespace shmtrain::topo
