#include "shmtrain/cli/multi_node_flags.hpp"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "shmtrain/launch/mpi_job.hpp"
#include "shmtrain/launch/mpirun_command.hpp"
#include "shmtrain/launch/open_mpi_keepalive.hpp"

namespace shmtrain::cli {

void add_multi_node_flags(CLI::App& command, MultiNodeFlags& flags) {
  const std::string group = "Across hosts (MPI)";
  command
      .add_option("--hostfile", flags.hostfile,
                  "Run on the hosts of this MPI hostfile: shmtrain prints the mpirun command and runs it")
      ->group(group);
  command.add_option("--nnodes", flags.nnodes, "Hosts to run on (default with --hostfile: every host in it)")
      ->group(group);
  command
      .add_option(
          "--simulated_hosts", flags.simulated_hosts,
          "Under mpirun: split this machine's ranks into this many hosts (rank / ranks per host), each "
          "with its own segment and MPI between them; for tests")
      ->group(group);
}

bool wants_mpirun(const MultiNodeFlags& flags) { return !flags.hostfile.empty() || flags.nnodes > 0; }

void check_simulated_hosts(const MultiNodeFlags& flags) {
  if (flags.simulated_hosts != 0 && !launch::started_by_mpi_launcher()) {
    fail_input(
        "--simulated_hosts {} splits the ranks of an MPI job: start shmtrain under mpirun, e.g. `mpirun -np "
        "4 "
        "shmtrain train --simulated_hosts 2 ...`, or add --hostfile",
        flags.simulated_hosts);
  }
}

void start_mpirun(const MultiNodeFlags& flags, const PlacementFlags& placement,
                  std::chrono::seconds between_hosts_timeout) {
  if (launch::started_by_mpi_launcher()) {
    fail_input(
        "--hostfile and --nnodes start mpirun; this shmtrain already runs under an MPI launcher: give the "
        "hostfile to mpirun instead");
  }
  if (flags.hostfile.empty()) fail_input("--nnodes {} needs --hostfile FILE naming the hosts", flags.nnodes);
  if (!launch::mpi_built_in()) {
    fail_input(
        "--hostfile: this shmtrain was built without MPI, so its ranks could not talk across hosts: install "
        "an MPI (libopenmpi-dev or libmpich-dev) and rebuild");
  }
  const std::vector<std::string> hosts = launch::read_hostfile(flags.hostfile);
  launch::MpirunRequest request;
  request.hostfile = std::filesystem::absolute(flags.hostfile);
  request.nnodes = flags.nnodes > 0 ? flags.nnodes : static_cast<int>(hosts.size());
  if (request.nnodes > static_cast<int>(hosts.size())) {
    fail_input("--nnodes {}: the hostfile {} names {} host(s)", request.nnodes, flags.hostfile, hosts.size());
  }
  request.ranks_per_node = placement.placement.nproc_per_node > 0
                               ? placement.placement.nproc_per_node
                               : static_cast<int>(resolve_placement(placement).plan.workers.size());
  request.program = launch::this_command_without({"--hostfile", "--nnodes"});
  const launch::MpiFlavor flavor = launch::detect_mpi_flavor(request.mpirun);
  if (flavor == launch::MpiFlavor::open_mpi &&
      !launch::notices_before(launch::open_mpi_keepalive_in_force(), between_hosts_timeout)) {
    request.open_mpi_mca = launch::keepalive_settings_for(between_hosts_timeout);
  }
  const std::vector<std::string> command = launch::mpirun_command(request, flavor, geteuid() == 0);
  fmt::print("shmtrain: {} host(s) x {} rank(s): {}\n", request.nnodes, request.ranks_per_node,
             launch::shell_join(command));
  std::fflush(stdout);
  launch::exec_command(command);
}

}  // namespace shmtrain::cli
