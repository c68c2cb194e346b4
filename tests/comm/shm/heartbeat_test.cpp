// Liveness by heartbeat (comm/shm/heartbeat.hpp): a rank whose process is stopped is named with
// its state once its heartbeat has stood still for the stall timeout, by the peer waiting for it
// and by the launcher; a rank that is busy for longer than that (a long save) is waited for; a
// rank that leaves without a collective is named at once.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "comm/harness.hpp"
#include "shmtrain/comm/shm/heartbeat.hpp"
#include "shmtrain/comm/shm/segment.hpp"
#include "shmtrain/comm/shm/shm_communicator.hpp"

namespace shmtrain::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

class Heartbeats : public ::testing::Test {
 protected:
  void SetUp() override { alarm(60); }  // a hang fails the test instead of stalling the suite
  void TearDown() override { alarm(0); }
};

// A child that stops itself at once: a process in state T, as SIGSTOP leaves a worker.
pid_t start_stopped_child() {
  const pid_t child = fork();
  if (child == 0) {
    raise(SIGSTOP);
    _exit(0);
  }
  int status = 0;
  if (child < 0 || waitpid(child, &status, WUNTRACED) != child || !WIFSTOPPED(status)) {
    throw std::runtime_error("the child did not stop");
  }
  return child;
}

void end_child(pid_t child) {
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

// `text` is `before` N `after` for a whole number N: how many seconds a stall is reported to have
// lasted depends on when the observer looked.
::testing::AssertionResult reads_with_seconds(const std::string& text, const std::string& before,
                                              const std::string& after) {
  const bool matches = text.size() > before.size() + after.size() && text.starts_with(before) &&
                       text.ends_with(after) &&
                       text.substr(before.size(), text.size() - before.size() - after.size())
                               .find_first_not_of("0123456789") == std::string::npos;
  if (matches) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << text << "\" is not \"" << before << "N" << after << "\"";
}

TEST_F(Heartbeats, AHeartbeatBeatsWhileItLivesAndStopsWithIt) {
  comm::Segment segment = comm::Segment::create_anonymous({1, 4096, 0});
  comm::RankControl& control = comm::rank_control(segment.bytes(), 0);
  {
    const comm::Heartbeat heartbeat(control);
    EXPECT_GE(control.heartbeat.load(), 1u);  // at once, not one interval later
    std::this_thread::sleep_for(4 * comm::kHeartbeatInterval);
    EXPECT_GE(control.heartbeat.load(), 3u);
  }
  const std::uint64_t last = control.heartbeat.load();
  std::this_thread::sleep_for(3 * comm::kHeartbeatInterval);
  EXPECT_EQ(control.heartbeat.load(), last);
}

// A gap between two looks counts at most kMaxCountedGap: an observer that was stopped itself
// (the whole job stopped with Ctrl-Z, then resumed) does not judge a peer by the pause.
TEST_F(Heartbeats, AWatchCountsStillTimeWhileItLooksAndAtMostASecondPerGap) {
  comm::Segment segment = comm::Segment::create_anonymous({1, 4096, 0});
  comm::RankControl& control = comm::rank_control(segment.bytes(), 0);
  const Clock::time_point t0{};
  comm::HeartbeatWatch watch(control, t0);
  EXPECT_EQ(watch.still_for(t0 + 500ms), 500ms);
  EXPECT_EQ(watch.still_for(t0 + 1000ms), 1000ms);
  EXPECT_EQ(watch.still_for(t0 + 60s), 2000ms);  // a 59 s gap counts 1 s
  control.heartbeat.fetch_add(1);
  EXPECT_EQ(watch.still_for(t0 + 61s), 0ms);
  EXPECT_EQ(watch.still_for(t0 + 61500ms), 500ms);
}

TEST_F(Heartbeats, TheProcessStateIsReadAndNamed) {
  EXPECT_EQ(comm::process_state(getpid()), 'R');
  const pid_t child = start_stopped_child();
  EXPECT_EQ(comm::process_state(child), 'T');
  EXPECT_EQ(comm::describe_process_state('T'), "stopped, T");
  EXPECT_EQ(comm::describe_process_state('D'), "uninterruptible sleep (usually I/O), D");
  EXPECT_EQ(comm::describe_stall(child, 3500ms), "has not made progress for 3 s (state: stopped, T)");
  end_child(child);
  EXPECT_EQ(comm::process_state(child), '?');
  EXPECT_EQ(comm::describe_process_state('?'), "unknown");
}

// The waiting side alone: rank 1's control block names a stopped process and no heartbeat moves
// it, as a SIGSTOPped worker's would stand.
TEST_F(Heartbeats, AWaitingRankNamesAStoppedPeerAfterTheStallTimeout) {
  comm::Segment segment = comm::Segment::create_anonymous({2, 4096, 0});
  const pid_t child = start_stopped_child();
  comm::rank_control(segment.bytes(), 1).pid.store(child);
  comm::ShmOptions options;
  options.transport.stall_timeout = 1s;
  comm::ShmCommunicator rank0(segment.bytes(), 0, options);
  const auto start = Clock::now();
  try {
    rank0.barrier();
    ADD_FAILURE() << "a stopped peer was waited for without end";
  } catch (const comm::PeerFailure& e) {
    EXPECT_TRUE(reads_with_seconds(e.what(), fmt::format("rank 1 (pid {}) has not made progress for ", child),
                                   " s (state: stopped, T) while rank 0 waited for it in barrier()"));
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_GE(seconds, 1.0);
  EXPECT_LT(seconds, 3.0);
  end_child(child);
}

TEST_F(Heartbeats, AStoppedWorkerStopsTheJobNamingItsRankAndState) {
  GroupSetup setup;
  setup.stall_timeout = 1s;
  const auto start = Clock::now();
  try {
    run_ranks(Mode::processes, 3, setup, [](comm::Communicator& comm) {
      comm.barrier();
      if (comm.rank() == 1) raise(SIGSTOP);
      comm.barrier();
    });
    ADD_FAILURE() << "a stopped worker went unnoticed";
  } catch (const launch::WorkerFailure& e) {
    EXPECT_EQ(e.rank(), 1);
    EXPECT_TRUE(reads_with_seconds(
        e.what(), fmt::format("worker 1 (pid {}, socket 0) has not made progress for ", e.pid()),
        " s (state: stopped, T); the job stops; --ddp_timeout sets the limit"));
    EXPECT_FALSE(comm::process_alive(e.pid()));
  }
  EXPECT_LT(Clock::now() - start, 6s);
}

class BusyPeers : public ::testing::TestWithParam<Mode> {
 protected:
  void SetUp() override { alarm(60); }
  void TearDown() override { alarm(0); }
};

// Rank 0 "writes a checkpoint" for three stall timeouts while its peers wait in a barrier: its
// heartbeat keeps beating, so nobody gives up.
TEST_P(BusyPeers, ARankBusyForLongerThanTheStallTimeoutIsWaitedFor) {
  GroupSetup setup;
  setup.stall_timeout = 1s;
  run_ranks(GetParam(), 3, setup, [](comm::Communicator& comm) {
    std::vector<float> data(1000, 1.0f);
    comm.allreduce(data, comm::ReduceOp::sum);
    if (comm.rank() == 0) std::this_thread::sleep_for(3s);
    comm.barrier();
    comm.allreduce(data, comm::ReduceOp::sum);
    if (data[0] != 9.0f)
      throw Error(fmt::format("rank {}: {} after two sums of 3 ranks", comm.rank(), data[0]));
  });
}

INSTANTIATE_TEST_SUITE_P(Modes, BusyPeers, ::testing::Values(Mode::processes, Mode::threads),
                         [](const ::testing::TestParamInfo<Mode>& param) { return mode_name(param.param); });

}  // namespace
}  // namespace shmtrain::testing
