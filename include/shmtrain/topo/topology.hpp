#pragma once
// The machine as hwloc sees it, reduced to what placement needs: the cores a worker may use,
// which package (socket) and NUMA node each belongs to, and its hardware threads (PUs).
//
// Only allowed resources are kept: hwloc already drops CPUs outside this process's cgroup and
// affinity mask (taskset), and `TopologySource::cpuset` can restrict further. A synthetic
// description ("package:2 numa:2 core:24 pu:2", see hwloc's synthetic format) or an XML file
// (lstopo --of xml) stands in for the real machine in tests and dry runs; such a topology is
// not this system, and nothing may be bound to it.
#include <memory>
#include <string>
#include <vector>

struct hwloc_topology;

namespace shmtrain::topo {

struct PlacementEntry;  // placement.hpp

struct TopologySource {
  // Empty: this machine. Otherwise an hwloc synthetic description, or the path of an XML file
  // (anything that names an existing file is read as XML).
  std::string topology;
  // Empty: every allowed CPU. Otherwise a CPU list ("0-7,16-23", OS indices) the topology is
  // restricted to, as taskset would restrict the process.
  std::string cpuset;
};

struct Core {
  int package = 0;        // OS index of its package (socket)
  int numa_node = 0;      // OS index of the NUMA node holding its cpus
  std::vector<int> pus;   // OS indices of its allowed hardware threads, first one first
};

class Topology {
 public:
  // Throws InputError for a description or XML file hwloc rejects, or a cpuset that leaves no
  // CPU; SystemError when the system topology cannot be read.
  static Topology load(const TopologySource& source);

  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  ~Topology();

  // True when this topology describes the machine this process runs on: binding is possible.
  bool is_this_system() const { return this_system_; }
  // "this machine", "synthetic topology 'package:2 core:4'", "XML topology file x.xml".
  const std::string& description() const { return description_; }

  // Allowed cores in topology order (package-major), each with at least one allowed PU.
  const std::vector<Core>& cores() const { return cores_; }
  int package_count() const;
  int numa_node_count() const;
  int pu_count() const;

  // One line per package: its NUMA nodes, cores and PUs.
  std::string summary() const;

 private:
  // The hwloc handle is binding's business alone (topo/binding.hpp).
  friend void bind_this_process(const Topology& topology, const PlacementEntry& entry);
  Topology() = default;
  hwloc_topology* handle_ = nullptr;
  bool this_system_ = false;
  std::string description_;
  std::vector<Core> cores_;
};

// True when this process's CPU affinity leaves out some of the CPUs it is allowed to use
// (cgroups): something bound it before it started (taskset, an MPI launcher's --bind-to).
// Throws SystemError when the binding cannot be read.
bool process_is_bound();

// Parses a CPU list such as "0-3,8,10-11" into sorted OS indices. Throws InputError.
std::vector<int> parse_cpu_list(const std::string& list);
// The inverse: sorted indices to the shortest list form ("0-3,8").
std::string format_cpu_list(const std::vector<int>& cpus);

}  // namespace shmtrain::topo
