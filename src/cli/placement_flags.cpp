#include "shmtrain/cli/placement_flags.hpp"

#include <CLI/CLI.hpp>

namespace shmtrain::cli {

void add_placement_flags(CLI::App& command, PlacementFlags& flags) {
  command.add_option("--nproc_per_node", flags.placement.nproc_per_node,
                     "Workers on this machine (default: one per package, or per NUMA node with --placement numa)");
  command.add_option("--placement", flags.unit, "Unit a worker is placed on by default: package or numa")
      ->capture_default_str();
  command.add_flag("--use_smt", flags.placement.use_smt,
                   "Bind workers to every hardware thread of their cores, not one per core");
  command.add_option("--exchange_cores", flags.placement.exchange_cores,
                     "Cores per worker kept free of compute threads for the exchange")
      ->capture_default_str();
  command.add_option("--topology", flags.source.topology,
                     "hwloc synthetic topology (\"package:2 numa:1 core:8 pu:2\") or XML file to plan for instead of "
                     "this machine; nothing is bound");
  command.add_option("--cpuset", flags.source.cpuset, "Restrict the topology to these CPUs, e.g. 0-7,16-23");
}

ResolvedPlacement resolve_placement(PlacementFlags flags) {
  flags.placement.unit = topo::parse_placement_unit(flags.unit);
  topo::Topology topology = topo::Topology::load(flags.source);
  topo::PlacementPlan plan = topo::make_plan(topology, flags.placement);
  return {std::move(topology), std::move(plan)};
}

}  // namespace shmtrain::cli
