#pragma once
// The flags of the commands that run across hosts (`train`, `bench allreduce`):
// --hostfile and --nnodes (shmtrain starts mpirun itself, launch/mpirun_command.hpp) and
// --simulated_hosts (under mpirun, split one machine into hosts: the test mode of the MPI
// bridge, launch/mpi_job.hpp).
#include <chrono>
#include <string>

#include "shmtrain/cli/placement_flags.hpp"

namespace CLI {
class App;
}

namespace shmtrain::cli {

struct MultiNodeFlags {
  std::string hostfile;
  int nnodes = 0;
  int simulated_hosts = 0;
};

void add_multi_node_flags(CLI::App& command, MultiNodeFlags& flags);

// True when the flags ask shmtrain to start mpirun (--hostfile or --nnodes).
bool wants_mpirun(const MultiNodeFlags& flags);

// Builds the mpirun command for --hostfile / --nnodes, prints it and replaces this process with
// it. Ranks per host: --nproc_per_node, else this machine's placement units (sockets). Throws
// InputError for a bad hostfile, too few hosts in it, or when already under an MPI launcher.
// With Open MPI, when its keepalive would notice a host cut off from the network only after
// `between_hosts_timeout` (--ddp_timeout between hosts), the line sets one that notices it
// sooner (launch/open_mpi_keepalive.hpp says why).
[[noreturn]] void start_mpirun(const MultiNodeFlags& flags, const PlacementFlags& placement,
                               std::chrono::seconds between_hosts_timeout);

// Throws InputError when --simulated_hosts is given to a command that no MPI launcher started.
void check_simulated_hosts(const MultiNodeFlags& flags);

}  // namespace shmtrain::cli
