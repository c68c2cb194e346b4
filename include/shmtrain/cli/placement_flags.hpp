#pragma once
// The flags of every subcommand that starts workers (`topo --check_binding`, `bench allreduce`,
// later `train`): where the topology comes from and how workers are placed on it.
#include <string>

#include "shmtrain/topo/placement.hpp"
#include "shmtrain/topo/topology.hpp"

namespace CLI {
class App;
}

namespace shmtrain::cli {

struct PlacementFlags {
  topo::TopologySource source;
  topo::PlacementOptions placement;
  std::string unit = "package";
};

void add_placement_flags(CLI::App& command, PlacementFlags& flags);

// Loads the topology and makes the plan the flags ask for. Throws InputError.
struct ResolvedPlacement {
  topo::Topology topology;
  topo::PlacementPlan plan;
};
ResolvedPlacement resolve_placement(PlacementFlags flags);

}  // namespace shmtrain::cli
