#include "shmtrain/launch/rank_placement.hpp"

#include "shmtrain/topo/binding.hpp"

namespace shmtrain::launch {

RankPlacement place_rank(const topo::TopologySource& source, topo::PlacementOptions options, int machine_rank,
                         int machine_size) {
  RankPlacement placement;
  if (source.topology.empty() && source.cpuset.empty() && topo::process_is_bound()) {
    // The topology of this machine is read within the process's binding: its cores are the
    // ones the launcher gave this rank, and one worker holds them all.
    const topo::Topology topology = topo::Topology::load(source);
    options.nproc_per_node = 1;
    placement.entry = topo::make_plan(topology, options).workers.front();
    placement.entry.rank = machine_rank;
    placement.bound = true;
    placement.binding = "kept from the MPI launcher";
    return placement;
  }
  const topo::Topology topology = topo::Topology::load(source);
  options.nproc_per_node = machine_size;
  const topo::PlacementPlan plan = topo::make_plan(topology, options);
  placement.entry = plan.workers[static_cast<std::size_t>(machine_rank)];
  if (plan.bind) {
    topo::bind_this_process(topology, placement.entry);
    placement.bound = true;
    placement.binding = plan.oversubscribed ? "shmtrain (hwloc), oversubscribed" : "shmtrain (hwloc)";
  } else {
    placement.binding = "none: the topology is not this machine";
  }
  return placement;
}

}  // namespace shmtrain::launch
