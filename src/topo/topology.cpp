#include "shmtrain/topo/topology.hpp"

#include <hwloc.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "hwloc_bitmap.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::topo {
namespace {

// The package's OS index is the socket number the machine reports, and survives restriction
// (logical indices are renumbered when a cpuset removes a package).
int package_of(hwloc_topology_t topology, hwloc_obj_t obj) {
  hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_PACKAGE, obj);
  if (package == nullptr) return 0;
  return static_cast<int>(package->os_index != HWLOC_UNKNOWN_INDEX ? package->os_index : package->logical_index);
}

// NUMA nodes hang off the tree as memory children in hwloc 2, so a core's node is the one
// whose cpuset covers the core's cpus.
int numa_node_of(hwloc_topology_t topology, hwloc_const_cpuset_t cpus) {
  hwloc_obj_t node = nullptr;
  while ((node = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, node)) != nullptr) {
    if (node->cpuset != nullptr && hwloc_bitmap_intersects(node->cpuset, cpus)) {
      return static_cast<int>(node->os_index);
    }
  }
  return 0;
}

std::vector<int> pus_inside(hwloc_topology_t topology, hwloc_const_cpuset_t cpus) {
  std::vector<int> pus;
  hwloc_obj_t pu = nullptr;
  while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(topology, cpus, HWLOC_OBJ_PU, pu)) != nullptr) {
    pus.push_back(static_cast<int>(pu->os_index));
  }
  return pus;
}

std::vector<Core> read_cores(hwloc_topology_t topology) {
  std::vector<Core> cores;
  // A topology without Core objects (some synthetic ones) gets one core per PU.
  const hwloc_obj_type_t unit = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE
                                                                                        : HWLOC_OBJ_PU;
  hwloc_obj_t obj = nullptr;
  while ((obj = hwloc_get_next_obj_by_type(topology, unit, obj)) != nullptr) {
    Core core;
    core.pus = pus_inside(topology, obj->cpuset);
    if (core.pus.empty()) continue;
    core.package = package_of(topology, obj);
    core.numa_node = numa_node_of(topology, obj->cpuset);
    cores.push_back(std::move(core));
  }
  return cores;
}

}  // namespace

std::vector<int> parse_cpu_list(const std::string& list) {
  Bitmap bitmap = make_bitmap();
  if (list.empty() || hwloc_bitmap_list_sscanf(bitmap.get(), list.c_str()) != 0 ||
      hwloc_bitmap_iszero(bitmap.get()) || hwloc_bitmap_weight(bitmap.get()) < 0) {
    fail_input("'{}' is not a CPU list: write it as taskset does, e.g. 0-3,8,10-11", list);
  }
  std::vector<int> cpus;
  int cpu = -1;
  while ((cpu = hwloc_bitmap_next(bitmap.get(), cpu)) != -1) cpus.push_back(cpu);
  return cpus;
}

std::string format_cpu_list(const std::vector<int>& cpus) {
  std::vector<int> sorted = cpus;
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  for (std::size_t i = 0; i < sorted.size();) {
    std::size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", sorted[i]) : fmt::format("{}-{}", sorted[i], sorted[j]);
    i = j + 1;
  }
  return out;
}

Topology Topology::load(const TopologySource& source) {
  Topology result;
  if (hwloc_topology_init(&result.handle_) != 0) throw_errno("hwloc_topology_init");

  if (source.topology.empty()) {
    // hwloc drops what cgroups forbid; this flag also drops what the affinity mask (taskset,
    // a parent's binding) forbids.
    if (hwloc_topology_set_flags(result.handle_, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM |
                                                                HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_CPUBINDING) != 0) {
      throw_errno("hwloc_topology_set_flags");
    }
    result.description_ = "this machine";
  } else if (std::filesystem::is_regular_file(source.topology)) {
    if (hwloc_topology_set_xml(result.handle_, source.topology.c_str()) != 0) {
      fail_input("cannot read the XML topology file {}: write one with `lstopo --of xml FILE`",
                 source.topology);
    }
    result.description_ = fmt::format("XML topology file {}", source.topology);
  } else {
    if (hwloc_topology_set_synthetic(result.handle_, source.topology.c_str()) != 0) {
      fail_input("'{}' is neither an XML file nor an hwloc synthetic topology such as "
                 "\"package:2 numa:1 core:8 pu:2\"",
                 source.topology);
    }
    result.description_ = fmt::format("synthetic topology '{}'", source.topology);
  }
  if (hwloc_topology_load(result.handle_) != 0) throw_errno("hwloc_topology_load");
  result.this_system_ = hwloc_topology_is_thissystem(result.handle_) != 0;

  if (!source.cpuset.empty()) {
    const std::vector<int> wanted = parse_cpu_list(source.cpuset);
    Bitmap set = make_bitmap();
    for (int cpu : wanted) hwloc_bitmap_set(set.get(), static_cast<unsigned>(cpu));
    hwloc_bitmap_and(set.get(), set.get(), hwloc_topology_get_topology_cpuset(result.handle_));
    if (hwloc_bitmap_iszero(set.get())) {
      fail_input("cpuset {} holds none of the topology's CPUs ({})", source.cpuset,
                 format_cpu_list(pus_inside(result.handle_, hwloc_topology_get_topology_cpuset(result.handle_))));
    }
    if (hwloc_topology_restrict(result.handle_, set.get(), 0) != 0) throw_errno("hwloc_topology_restrict");
    result.description_ += fmt::format(" restricted to cpus {}", source.cpuset);
  }

  result.cores_ = read_cores(result.handle_);
  if (result.cores_.empty()) fail_input("the {} holds no usable core", result.description_);
  return result;
}

bool process_is_bound() {
  hwloc_topology_t handle = nullptr;
  if (hwloc_topology_init(&handle) != 0) throw_errno("hwloc_topology_init");
  const std::unique_ptr<hwloc_topology, void (*)(hwloc_topology_t)> owner(handle, hwloc_topology_destroy);
  if (hwloc_topology_set_flags(handle, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM) != 0) throw_errno("hwloc_topology_set_flags");
  if (hwloc_topology_load(handle) != 0) throw_errno("hwloc_topology_load");
  Bitmap binding = make_bitmap();
  if (hwloc_get_cpubind(handle, binding.get(), HWLOC_CPUBIND_PROCESS) != 0) throw_errno("hwloc_get_cpubind");
  return hwloc_bitmap_isincluded(hwloc_topology_get_allowed_cpuset(handle), binding.get()) == 0;
}

Topology::Topology(Topology&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      this_system_(other.this_system_),
      description_(std::move(other.description_)),
      cores_(std::move(other.cores_)) {}

Topology& Topology::operator=(Topology&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) hwloc_topology_destroy(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    this_system_ = other.this_system_;
    description_ = std::move(other.description_);
    cores_ = std::move(other.cores_);
  }
  return *this;
}

Topology::~Topology() {
  if (handle_ != nullptr) hwloc_topology_destroy(handle_);
}

int Topology::package_count() const {
  std::set<int> packages;
  for (const Core& core : cores_) packages.insert(core.package);
  return static_cast<int>(packages.size());
}

int Topology::numa_node_count() const {
  std::set<int> nodes;
  for (const Core& core : cores_) nodes.insert(core.numa_node);
  return static_cast<int>(nodes.size());
}

int Topology::pu_count() const {
  int pus = 0;
  for (const Core& core : cores_) pus += static_cast<int>(core.pus.size());
  return pus;
}

std::string Topology::summary() const {
  std::map<int, std::vector<const Core*>> by_package;
  for (const Core& core : cores_) by_package[core.package].push_back(&core);
  std::string out = fmt::format("{}: {} package(s), {} NUMA node(s), {} core(s), {} PU(s)\n", description_,
                                package_count(), numa_node_count(), cores_.size(), pu_count());
  for (const auto& [package, cores] : by_package) {
    std::set<int> nodes;
    std::vector<int> pus;
    for (const Core* core : cores) {
      nodes.insert(core->numa_node);
      pus.insert(pus.end(), core->pus.begin(), core->pus.end());
    }
    out += fmt::format("  package {}: numa {}, {} cores, cpus {}\n", package,
                       format_cpu_list({nodes.begin(), nodes.end()}), cores.size(), format_cpu_list(pus));
  }
  return out;
}

}  // namespace shmtrain::topo
