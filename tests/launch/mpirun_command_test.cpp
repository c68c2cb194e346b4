// The mpirun line `train --hostfile FILE --nnodes N` builds, for Open MPI and for Hydra (MPICH,
// Intel MPI), and the hostfiles it reads.
#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/launch/mpirun_command.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

launch::MpirunRequest two_hosts() {
  launch::MpirunRequest request;
  request.hostfile = "/jobs/hostfile";
  request.nnodes = 2;
  request.ranks_per_node = 2;
  request.program = {"/opt/shmtrain", "train", "--config", "run.toml"};
  return request;
}

TEST(MpirunCommand, OpenMpiMapsRanksPerNodeAndLeavesBindingToShmtrain) {
  EXPECT_EQ(launch::mpirun_command(two_hosts(), launch::MpiFlavor::open_mpi, false),
            (std::vector<std::string>{"mpirun", "--hostfile", "/jobs/hostfile", "-np", "4", "--map-by",
                                      "ppr:2:node", "--bind-to", "none", "/opt/shmtrain", "train", "--config",
                                      "run.toml"}));
  const std::vector<std::string> as_root =
      launch::mpirun_command(two_hosts(), launch::MpiFlavor::open_mpi, true);
  EXPECT_EQ(as_root[1], "--allow-run-as-root");
}

TEST(MpirunCommand, HydraTakesTheSeedsFlags) {
  EXPECT_EQ(launch::mpirun_command(two_hosts(), launch::MpiFlavor::hydra, true),
            (std::vector<std::string>{"mpirun", "-f", "/jobs/hostfile", "-n", "4", "-ppn", "2",
                                      "/opt/shmtrain", "train", "--config", "run.toml"}));
}

TEST(MpirunCommand, HostfilesOfEitherFlavorNameTheirHosts) {
  const TempDir dir;
  write_file(dir / "hosts", "# the job's hosts\nnode0 slots=2\n\n  10.0.0.2:2  # second\nnode2\n");
  EXPECT_EQ(launch::read_hostfile(dir / "hosts"), (std::vector<std::string>{"node0", "10.0.0.2", "node2"}));
  write_file(dir / "empty", "# nothing\n");
  EXPECT_NE(error_of([&] { launch::read_hostfile(dir / "empty"); }).find("names no host"), std::string::npos);
  EXPECT_NE(error_of([&] { launch::read_hostfile(dir / "missing"); }).find("cannot read it"),
            std::string::npos);
}

TEST(MpirunCommand, ShellJoinQuotesWhatAShellWouldSplit) {
  EXPECT_EQ(launch::shell_join({"mpirun", "-np", "4", "a b", "it's", "--x=1,2"}),
            "mpirun -np 4 'a b' 'it'\\''s' --x=1,2");
}

}  // namespace
}  // namespace shmtrain::testing
