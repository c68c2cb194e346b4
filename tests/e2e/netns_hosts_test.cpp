// Two real hosts on one machine: network namespaces with their own hostname and /dev/shm, joined
// by a bridge (tools/netns_hosts.sh of the shared tools; Open MPI reaches them through an agent
// that enters the namespaces). 2 hosts x 2 ranks train the PyTorch reference fixture to the
// losses of 4 workers on one host; then a rank of the second host killed, a rank of it stopped,
// and its network cut each end the job within --ddp_timeout + 10 s, non-zero, naming the host
// and the rank, with no shmtrain segment left in either host's /dev/shm. mpirun gets the
// keepalive settings shmtrain's own mpirun line adds for that --ddp_timeout
// (launch/open_mpi_keepalive.hpp): without them a cut network leaves mpirun waiting minutes for the
// cut host's daemon after every rank has ended.
// Skipped, saying why, where the hosts cannot be made: not root, no `ip`, no mpiexec, no script.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "job_processes.hpp"
#include "reference_run.hpp"
#include "shmtrain/comm/shm/segment.hpp"
#include "shmtrain/launch/open_mpi_keepalive.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr int kDdpTimeout = 5;

// SHMTRAIN_NETNS_HOSTS, else tools/netns_hosts.sh of the repository or of the shared tools.
fs::path netns_script() {
  if (const char* path = std::getenv("SHMTRAIN_NETNS_HOSTS"); path != nullptr) return path;
  for (const fs::path& path :
       {source_dir() / "tools" / "netns_hosts.sh", fs::path("/work/shared/tools/netns_hosts.sh")}) {
    if (fs::exists(path)) return path;
  }
  return {};
}

std::string mpiexec_program() {
#if defined(SHMTRAIN_TEST_MPIEXEC)
  return SHMTRAIN_TEST_MPIEXEC;
#else
  return "mpiexec";
#endif
}

// Why the hosts cannot be made here, or "".
std::string netns_unavailable_reason() {
  if (std::string reason = mpi_unavailable_reason(); !reason.empty()) return reason;
  if (geteuid() != 0) return "network namespaces need root (ip netns, unshare, nsenter)";
  if (run_command("ip -V").exit_code != 0) return "no `ip` (iproute2) to make network namespaces";
  if (run_command("(command -v nsenter && command -v unshare)").exit_code != 0)
    return "no nsenter or unshare";
  if (netns_script().empty()) return "no netns_hosts.sh (set SHMTRAIN_NETNS_HOSTS to its path)";
  return "";
}

// The hosts, up for the object's life: taken down (their processes killed first) even when a
// test fails. host(i), i from 1, is 10.231.0.i with hostname "host<i>".
class NetnsHosts {
 public:
  explicit NetnsHosts(int count)
      : count_(count), prefix_(fmt::format("st{}", getpid() % 100000)), script_(netns_script()) {
    const CliRun up = run_command(fmt::format("{} up {} {}", script_.string(), prefix_, count_));
    std::istringstream lines(up.out);
    std::string line;
    while (std::getline(lines, line)) {
      if (line.find("agent.sh") != std::string::npos) agent_ = line;
    }
    if (up.exit_code != 0 || agent_.empty() || run(2, "true").exit_code != 0) {
      error_ = fmt::format("netns_hosts.sh up failed ({}): {}", up.exit_code, up.output());
    }
  }
  ~NetnsHosts() {
    for (int i = 1; i <= count_; ++i) kill_all(i);
    run_command(fmt::format("{} down {} {}", script_.string(), prefix_, count_));
  }
  NetnsHosts(const NetnsHosts&) = delete;
  NetnsHosts& operator=(const NetnsHosts&) = delete;

  const std::string& error() const { return error_; }
  const std::string& agent() const { return agent_; }
  const std::string& prefix() const { return prefix_; }
  std::string veth(int i) const { return fmt::format("{}v{}", prefix_, i); }
  std::string netns(int i) const { return fmt::format("{}h{}", prefix_, i); }

  CliRun run(int i, const std::string& command) const {
    return run_command(fmt::format("{} run {} {} {}", script_.string(), prefix_, i, command));
  }
  // argv that runs `command` on host i.
  std::vector<std::string> on_host(int i, const std::vector<std::string>& command) const {
    std::vector<std::string> argv{script_.string(), "run", prefix_, std::to_string(i)};
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
  }
  // The processes in host i's network namespace (its ranks, Open MPI's daemon).
  std::vector<pid_t> pids(int i) const {
    std::vector<pid_t> result;
    std::istringstream words(run_command("ip netns pids " + netns(i)).out);
    for (pid_t pid = 0; words >> pid;) result.push_back(pid);
    return result;
  }
  std::vector<pid_t> ranks(int i) const {
    std::vector<pid_t> result;
    for (pid_t pid : pids(i)) {
      std::error_code error;
      if (fs::read_symlink(fmt::format("/proc/{}/exe", pid), error) == fs::canonical(shmtrain_binary()))
        result.push_back(pid);
    }
    return result;
  }
  // What of shmtrain host i's /dev/shm holds.
  std::string shmtrain_files(int i) const {
    const CliRun listing = run(i, "ls /dev/shm");
    std::istringstream names(listing.out);
    std::string result;
    for (std::string name; names >> name;) {
      if (name.rfind(comm::kSegmentPrefix, 0) == 0) result += name + " ";
    }
    return result;
  }

 private:
  void kill_all(int i) const {
    for (pid_t pid : pids(i)) {
      const std::string exe = fs::read_symlink(fmt::format("/proc/{}/exe", pid), ignored_).string();
      if (exe.find("sleep") == std::string::npos) kill(pid, SIGKILL);  // the host's holder goes with `down`
    }
  }

  int count_;
  std::string prefix_;
  fs::path script_;
  std::string agent_;
  std::string error_;
  mutable std::error_code ignored_;
};

#define SKIP_WITHOUT_NETNS()                                                      \
  do {                                                                            \
    if (const std::string reason = netns_unavailable_reason(); !reason.empty()) { \
      GTEST_SKIP() << reason;                                                     \
    }                                                                             \
  } while (false)

std::string train_flags(const ReferenceRun& run, const fs::path& output_dir) {
  return fmt::format(
      "train --do_train --model_name_or_path {} --train_file {} --do_eval false --output_dir {} "
      "--max_seq_length 32"
      " --per_device_train_batch_size 2 --learning_rate 1e-3 --weight_decay 0.01 --lr_scheduler_type constant"
      " --shuffle false --num_train_epochs 1 --save_steps 0 --ddp_timeout {}",
      run.model.string(), run.train_file.string(), output_dir.string(), kDdpTimeout);
}

enum class Keepalive { open_mpis_defaults, shmtrains };

// mpirun on host 1 starting 2 ranks on each host, with Open MPI's keepalive settings or those
// shmtrain's own mpirun line would add for kDdpTimeout.
std::vector<std::string> mpirun_argv(const NetnsHosts& hosts, const fs::path& hostfile, const std::string& flags,
                                     Keepalive keepalive) {
  std::vector<std::string> command = {"env",
                                      "OMPI_ALLOW_RUN_AS_ROOT=1",
                                      "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
                                      "OMPI_MCA_orte_tmpdir_base=" + mpi_session_dir(),
                                      mpiexec_program(),
                                      "--mca",
                                      "plm_rsh_agent",
                                      hosts.agent(),
                                      "--hostfile",
                                      hostfile.string(),
                                      "-np",
                                      "4",
                                      "--map-by",
                                      "ppr:2:node",
                                      "--bind-to",
                                      "none"};
  if (keepalive == Keepalive::shmtrains) {
    for (const auto& [name, value] : launch::keepalive_settings_for(std::chrono::seconds(kDdpTimeout))) {
      command.insert(command.end(), {"--mca", name, value});
    }
  }
  command.push_back(shmtrain_binary().string());
  for (const std::string& word : split_words(flags)) command.push_back(word);
  return hosts.on_host(1, command);
}

struct Ended {
  bool ended = false;
  int status = 0;
  double seconds = 0;
};

Ended wait_for(pid_t pid, Clock::time_point since, std::chrono::seconds limit) {
  Ended result;
  pid_t reaped = 0;
  while ((reaped = waitpid(pid, &result.status, WNOHANG)) == 0 && Clock::now() - since < limit) {
    std::this_thread::sleep_for(10ms);
  }
  result.ended = reaped == pid;
  result.seconds = std::chrono::duration<double>(Clock::now() - since).count();
  return result;
}

TEST(NetnsHosts, TwoHostsOfTwoRanksTrainTheModelOfFourWorkersOnOneHost) {
  SKIP_WITHOUT_NETNS();
  const NetnsHosts hosts(2);
  if (!hosts.error().empty()) GTEST_SKIP() << hosts.error();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  write_file(dir / "hostfile", "10.231.0.1 slots=2\n10.231.0.2 slots=2\n");
  const CliRun box = run_shmtrain(train_flags(run, dir / "box") + " --logging_steps 1 --nproc_per_node 4");
  ASSERT_EQ(box.exit_code, 0) << box.output();

  const pid_t mpirun = start_process(
      mpirun_argv(hosts, dir / "hostfile", train_flags(run, dir / "hosts") + " --logging_steps 1",
                  Keepalive::open_mpis_defaults),
      dir / "stdout.txt", dir / "stderr.txt");
  ASSERT_GT(mpirun, 0);
  const Ended ended = wait_for(mpirun, Clock::now(), 300s);
  ASSERT_TRUE(ended.ended) << "still running after 300 s\n" << read_file(dir / "stderr.txt");
  const std::string out = read_file(dir / "stdout.txt");
  ASSERT_TRUE(WIFEXITED(ended.status) && WEXITSTATUS(ended.status) == 0)
      << ended.status << "\n"
      << out << read_file(dir / "stderr.txt");
  EXPECT_NE(out.find("MPI: 4 ranks = 2 host(s) x 2 rank(s) |"), std::string::npos) << out;
  EXPECT_NE(out.find("host1"), std::string::npos) << out;
  EXPECT_NE(out.find("host2"), std::string::npos) << out;

  const auto expected = metric_by_step(dir / "box" / "metrics.jsonl", "loss");
  const auto losses = metric_by_step(dir / "hosts" / "metrics.jsonl", "loss");
  ASSERT_EQ(expected.size(), 20u);
  ASSERT_EQ(losses.size(), expected.size());
  for (std::size_t i = 0; i < losses.size(); ++i) {
    EXPECT_EQ(losses[i].first, expected[i].first);
    EXPECT_NEAR(losses[i].second, expected[i].second, 1e-5 * std::abs(expected[i].second))
        << "step " << i + 1;
  }
  expect_same_weights(dir / "hosts" / "model.safetensors", dir / "box" / "model.safetensors");
  // Open MPI's keepalive notices a cut host after 480 s, long after --ddp_timeout 5: said, once.
  const std::string err = read_file(dir / "stderr.txt");
  const std::string note = "note: Open MPI notices a host cut off from the network after 480 s, later than "
                           "--ddp_timeout (5 s)";
  EXPECT_NE(err.find(note), std::string::npos) << err;
  EXPECT_EQ(err.find(note), err.rfind(note)) << err;
  EXPECT_EQ(hosts.shmtrain_files(1), "");
  EXPECT_EQ(hosts.shmtrain_files(2), "");
}

enum class Fault { kill, stop, cut };

class NetnsHostsFault : public ::testing::TestWithParam<Fault> {};

TEST_P(NetnsHostsFault, OnTheSecondHostEndsTheJobWithinTheTimeoutNamingHostAndRank) {
  SKIP_WITHOUT_NETNS();
  const NetnsHosts hosts(2);
  if (!hosts.error().empty()) GTEST_SKIP() << hosts.error();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  write_file(dir / "hostfile", "10.231.0.1 slots=2\n10.231.0.2 slots=2\n");
  // Thousands of epochs: the run is still training when the fault comes.
  std::string flags = train_flags(run, dir / "out") + " --logging_steps 10";
  flags.replace(flags.find("--num_train_epochs 1"), 20, "--num_train_epochs 5000");
  const pid_t mpirun =
      start_process(mpirun_argv(hosts, dir / "hostfile", flags, Keepalive::shmtrains), dir / "stdout.txt",
                    dir / "stderr.txt");
  ASSERT_GT(mpirun, 0);
  const auto started = Clock::now();
  while (metric_by_step(dir / "out" / "metrics.jsonl", "loss").size() < 3 && Clock::now() - started < 120s) {
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_GE(metric_by_step(dir / "out" / "metrics.jsonl", "loss").size(), 3u)
      << read_file(dir / "stderr.txt");
  const std::vector<pid_t> ranks = hosts.ranks(2);
  ASSERT_EQ(ranks.size(), 2u) << read_file(dir / "stderr.txt");

  const Fault fault = GetParam();
  if (fault == Fault::kill) {
    ASSERT_EQ(kill(ranks[1], SIGKILL), 0);
  }
  if (fault == Fault::stop) {
    ASSERT_EQ(kill(ranks[1], SIGSTOP), 0);
  }
  if (fault == Fault::cut) {
    const CliRun cut = run_command(fmt::format("ip -n {} link set {} down", hosts.netns(2), hosts.veth(2)));
    ASSERT_EQ(cut.exit_code, 0) << cut.output();
  }
  const auto faulted = Clock::now();
  const auto limit = std::chrono::seconds(kDdpTimeout + 15);
  // mpirun ended, and every rank of both hosts gone, each timed from the fault.
  Ended ended;
  bool ranks_gone = false;
  double gone_after = 0;
  while ((!ended.ended || !ranks_gone) && Clock::now() - faulted < limit) {
    const double now = std::chrono::duration<double>(Clock::now() - faulted).count();
    if (!ended.ended && waitpid(mpirun, &ended.status, WNOHANG) == mpirun) ended = {true, ended.status, now};
    if (!ranks_gone && hosts.ranks(1).empty() && hosts.ranks(2).empty()) {
      ranks_gone = true;
      gone_after = now;
    }
    std::this_thread::sleep_for(10ms);
  }
  const std::string err = read_file(dir / "stderr.txt");
  std::printf("%s", err.c_str());
  std::printf("fault %d: mpirun %s %.2f s, every rank %s %.2f s after the fault\n", static_cast<int>(fault),
              ended.ended ? "ended after" : "still ran after",
              ended.ended ? ended.seconds : limit.count() * 1.0, ranks_gone ? "gone after" : "not gone after",
              ranks_gone ? gone_after : limit.count() * 1.0);
  if (!ended.ended) {
    kill(mpirun, SIGKILL);
    waitpid(mpirun, nullptr, 0);
  }
  EXPECT_TRUE(ranks_gone) << "a rank outlived the fault by " << limit.count() << " s";
  EXPECT_LT(gone_after, kDdpTimeout + 10.0);
  // shmtrain names a rank and its host ("rank 3 (host 1, local rank 1): ..."), or mpirun the
  // killed rank and its node ("process rank 3 with PID ... on node host2 exited on signal 9"), or
  // a rank of the first host the host it waited for ("waited 5 s (--ddp_timeout) for host 1"),
  // or mpirun the cut host ("lost communication with a remote daemon ... on node 10.231.0.2").
  const bool named =
      err.find("(host 1, local rank") != std::string::npos ||
      err.find(fmt::format("waited {} s (--ddp_timeout) for host 1", kDdpTimeout)) != std::string::npos ||
      (err.find("rank") != std::string::npos && err.find("node host2") != std::string::npos) ||
      (err.find("lost communication with a remote daemon") != std::string::npos &&
       err.find("on node 10.231.0.2") != std::string::npos);
  EXPECT_TRUE(named) << err;
  EXPECT_EQ(hosts.shmtrain_files(1), "");
  EXPECT_EQ(hosts.shmtrain_files(2), "");
  EXPECT_EQ(err.find("note: Open MPI notices a host cut off"), std::string::npos) << err;
  EXPECT_TRUE(ended.ended) << "mpirun still ran " << limit.count() << " s after the fault";
  EXPECT_LT(ended.seconds, kDdpTimeout + 10.0);
  EXPECT_FALSE(WIFEXITED(ended.status) && WEXITSTATUS(ended.status) == 0) << ended.status;
}

INSTANTIATE_TEST_SUITE_P(Faults, NetnsHostsFault, ::testing::Values(Fault::kill, Fault::stop, Fault::cut),
                         [](const ::testing::TestParamInfo<Fault>& param) {
                           switch (param.param) {
                             case Fault::kill:
                               return std::string("RankKilled");
                             case Fault::stop:
                               return std::string("RankStopped");
                             case Fault::cut:
                               return std::string("NetworkCut");
                           }
                           return std::string();
                         });

}  // namespace
}  // namespace shmtrain::testing
