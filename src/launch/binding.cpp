#include <hwloc.h>

#include <cerrno>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "worker_process.hpp"

namespace shmtrain::launch {
namespace {
struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* bitmap) const { hwloc_bitmap_free(bitmap); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;
}  // namespace

void bind_to_entry(const topo::Topology& topology, const topo::PlacementEntry& entry) {
  hwloc_topology_t handle = topology.handle();
  Bitmap cpus(hwloc_bitmap_alloc());
  Bitmap nodes(hwloc_bitmap_alloc());
  if (!cpus || !nodes) throw_errno("hwloc_bitmap_alloc");
  for (int cpu : entry.cpus) hwloc_bitmap_set(cpus.get(), static_cast<unsigned>(cpu));
  for (int node : entry.numa_nodes) hwloc_bitmap_set(nodes.get(), static_cast<unsigned>(node));

  if (hwloc_set_cpubind(handle, cpus.get(), HWLOC_CPUBIND_PROCESS) != 0) {
    throw_errno(fmt::format("binding worker {} to cpus {}", entry.rank, topo::format_cpu_list(entry.cpus)));
  }
  // With one NUMA node there is nothing to choose; binding would only add a failure mode
  // (containers often forbid set_mempolicy).
  if (topology.numa_node_count() > 1 &&
      hwloc_set_membind(handle, nodes.get(), HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_PROCESS | HWLOC_MEMBIND_BYNODESET) != 0) {
    const int saved = errno;
    fmt::print(stderr, "shmtrain: warning: worker {}: memory not bound to NUMA node(s) {}: {}; pages go where "
               "they are first touched\n",
               entry.rank, topo::format_cpu_list(entry.numa_nodes), SystemError("set_membind", saved).what());
  }
}

}  // namespace shmtrain::launch
