// When Open MPI would notice a host cut off from the network (its keepalive settings, from the
// environment, the parameter files or its defaults), the note shmtrain prints when that comes
// after --ddp_timeout, and the settings its own mpirun line adds then.
#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "shmtrain/launch/mpirun_command.hpp"
#include "shmtrain/launch/open_mpi_keepalive.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

using launch::OpenMpiKeepalive;
using namespace std::chrono_literals;

struct FakeEnv {
  std::map<std::string, std::string> values;
  std::function<const char*(const char*)> lookup() const {
    return [this](const char* name) -> const char* {
      const auto found = values.find(name);
      return found == values.end() ? nullptr : found->second.c_str();
    };
  }
};

TEST(OpenMpiKeepalive, DefaultsAreOpenMpisAndNoticeACutAfter480Seconds) {
  const OpenMpiKeepalive keepalive = launch::read_open_mpi_keepalive(FakeEnv{}.lookup(), {});
  EXPECT_EQ(keepalive.time, 300);
  EXPECT_EQ(keepalive.intvl, 20);
  EXPECT_EQ(keepalive.probes, 9);
  EXPECT_EQ(keepalive.detection_seconds(), 480);
}

TEST(OpenMpiKeepalive, TheEnvironmentWinsOverTheFilesAndTheUsersFileOverTheSystems) {
  const TempDir dir;
  write_file(dir / "user.conf", "# mine\noob_tcp_keepalive_time = 10\n  oob_tcp_keepalive_intvl=3  \n");
  write_file(dir / "system.conf", "oob_tcp_keepalive_time = 99\noob_tcp_keepalive_probes = 4\nbtl = tcp,self\n");
  FakeEnv env;
  env.values["OMPI_MCA_oob_tcp_keepalive_intvl"] = "2";
  const OpenMpiKeepalive keepalive =
      launch::read_open_mpi_keepalive(env.lookup(), {dir / "user.conf", dir / "missing.conf", dir / "system.conf"});
  EXPECT_EQ(keepalive.time, 10);
  EXPECT_EQ(keepalive.intvl, 2);
  EXPECT_EQ(keepalive.probes, 4);
  EXPECT_EQ(keepalive.detection_seconds(), 18);
}

TEST(OpenMpiKeepalive, AValueThatIsNoWholeNumberIsLeftToTheNextSource) {
  FakeEnv env;
  env.values["OMPI_MCA_oob_tcp_keepalive_time"] = "10s";
  env.values["OMPI_MCA_oob_tcp_keepalive_probes"] = "";
  const OpenMpiKeepalive keepalive = launch::read_open_mpi_keepalive(env.lookup(), {});
  EXPECT_EQ(keepalive.time, 300);
  EXPECT_EQ(keepalive.probes, 9);
}

TEST(OpenMpiKeepalive, TheParamFilesAreTheUsersThenTheSystems) {
  FakeEnv env;
  env.values["HOME"] = "/home/ann";
  EXPECT_EQ(launch::open_mpi_param_files(env.lookup()),
            (std::vector<std::filesystem::path>{"/home/ann/.openmpi/mca-params.conf",
                                                "/etc/openmpi/openmpi-mca-params.conf"}));
}

TEST(OpenMpiKeepalive, NoNoteWhenTheCutIsNoticedBeforeTheTimeout) {
  EXPECT_EQ(launch::keepalive_note(OpenMpiKeepalive{}, 1800s), "");
  EXPECT_EQ(launch::keepalive_note(OpenMpiKeepalive{.time = 1, .intvl = 1, .probes = 2}, 5s), "");
}

TEST(OpenMpiKeepalive, TheNoteSaysWhenAndGivesTheFlagsThatNoticeWithinTheTimeout) {
  const std::string note = launch::keepalive_note(OpenMpiKeepalive{}, 60s);
  EXPECT_NE(note.find("after 480 s, later than --ddp_timeout (60 s)"), std::string::npos) << note;
  EXPECT_NE(note.find("--mca oob_tcp_keepalive_time 18 --mca oob_tcp_keepalive_intvl 1 --mca "
                      "oob_tcp_keepalive_probes 2"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("within 20 s"), std::string::npos) << note;
  // The flags it gives do what it says.
  const auto settings = launch::keepalive_settings_for(60s);
  ASSERT_EQ(settings.size(), 3u);
  const OpenMpiKeepalive fixed{.time = std::stoll(settings[0].second),
                               .intvl = std::stoll(settings[1].second),
                               .probes = std::stoll(settings[2].second)};
  EXPECT_EQ(launch::keepalive_note(fixed, 60s), "");
}

TEST(OpenMpiKeepalive, KeepaliveOffIsNeverNoticed) {
  const std::string note = launch::keepalive_note(OpenMpiKeepalive{.time = 0}, 1800s);
  EXPECT_EQ(OpenMpiKeepalive{.time = 0}.detection_seconds(), std::nullopt);
  EXPECT_NE(note.find("never (keepalive off)"), std::string::npos) << note;
}

TEST(OpenMpiKeepalive, ShmtrainsOwnOpenMpiLinePassesTheSettings) {
  launch::MpirunRequest request;
  request.hostfile = "/jobs/hostfile";
  request.nnodes = 2;
  request.program = {"/opt/shmtrain", "train"};
  request.open_mpi_mca = launch::keepalive_settings_for(60s);
  EXPECT_EQ(launch::mpirun_command(request, launch::MpiFlavor::open_mpi, false),
            (std::vector<std::string>{"mpirun", "--hostfile", "/jobs/hostfile", "-np", "2", "--map-by", "ppr:1:node",
                                      "--bind-to", "none", "--mca", "oob_tcp_keepalive_time", "18", "--mca",
                                      "oob_tcp_keepalive_intvl", "1", "--mca", "oob_tcp_keepalive_probes", "2",
                                      "/opt/shmtrain", "train"}));
  // Hydra has no such settings.
  const std::vector<std::string> hydra = launch::mpirun_command(request, launch::MpiFlavor::hydra, false);
  EXPECT_EQ(std::count(hydra.begin(), hydra.end(), "--mca"), 0);
}

}  // namespace
}  // namespace shmtrain::testing
