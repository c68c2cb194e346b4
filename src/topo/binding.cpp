#include "shmtrain/topo/binding.hpp"

#include <hwloc.h>

#include <cerrno>
#include <cstdio>

#include <fmt/format.h>

#include "hwloc_bitmap.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::topo {

void bind_this_process(const Topology& topology, const PlacementEntry& entry) {
  if (!topology.is_this_system()) {
    throw Error(fmt::format("worker {}: cannot bind to {}: it is not this machine", entry.rank,
                            topology.description()));
  }
  hwloc_topology_t handle = topology.handle_;
  const Bitmap cpus = make_bitmap();
  const Bitmap nodes = make_bitmap();
  for (int cpu : entry.cpus) hwloc_bitmap_set(cpus.get(), static_cast<unsigned>(cpu));
  for (int node : entry.numa_nodes) hwloc_bitmap_set(nodes.get(), static_cast<unsigned>(node));

  if (hwloc_set_cpubind(handle, cpus.get(), HWLOC_CPUBIND_PROCESS) != 0) {
    throw_errno(fmt::format("binding worker {} to cpus {}", entry.rank, format_cpu_list(entry.cpus)));
  }
  // With one NUMA node there is nothing to choose; binding would only add a failure mode
  // (containers often forbid set_mempolicy).
  if (topology.numa_node_count() > 1 &&
      hwloc_set_membind(handle, nodes.get(), HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_PROCESS | HWLOC_MEMBIND_BYNODESET) != 0) {
    const int saved = errno;
    fmt::print(stderr, "shmtrain: warning: worker {}: memory not bound to NUMA node(s) {}: {}; pages go where "
               "they are first touched\n",
               entry.rank, format_cpu_list(entry.numa_nodes), SystemError("set_membind", saved).what());
  }
}

}  // namespace shmtrain::topo
