#include "shmtrain/launch/launcher.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <future>
#include <thread>

#include "launcher_harness.hpp"
#include "shmtrain/comm/shm/segment.hpp"

namespace shmtrain::testing {
namespace {

using namespace std::chrono_literals;

class Launcher : public ::testing::Test {
 protected:
  void SetUp() override { alarm(60); }  // a hang fails the test instead of stalling the suite
  void TearDown() override { alarm(0); }
};

void launch_here(int world, const launch::LaunchOptions& options, const launch::WorkerFunction& worker) {
  const topo::Topology topology = topo::Topology::load({"package:1 core:4 pu:1", ""});
  launch::launch_workers(topology, topo::make_plan(topology, {.nproc_per_node = world}), options, worker);
}

TEST_F(Launcher, EveryRankRunsWithItsPlacementAndTheSegmentIsRemoved) {
  TempDir dir;
  const auto path = dir.path();
  launch_here(3, {}, [path](launch::WorkerContext& context) {
    record_worker(path, context);
    write_file(path / fmt::format("info.{}", context.rank),
               fmt::format("{} {} {} {}", context.world_size, context.communicator.size(),
                           context.placement.cpus.front(), context.bound));
    return 0;
  });
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_EQ(read_file(dir / fmt::format("info.{}", rank)), fmt::format("3 3 {} false", rank));
  }
  EXPECT_FALSE(shm_exists(read_file(dir / "segment.0")));
}

TEST_F(Launcher, AFailingWorkerIsNamedAndItsPeersStopped) {
  TempDir dir;
  const auto path = dir.path();
  const auto start = std::chrono::steady_clock::now();
  try {
    launch_here(3, {}, [path](launch::WorkerContext& context) {
      record_worker(path, context);
      if (context.rank == 1) return 7;
      context.communicator.barrier();  // never completes: rank 1 is gone
      return 0;
    });
    FAIL() << "the failure of worker 1 went unreported";
  } catch (const launch::WorkerFailure& e) {
    EXPECT_EQ(e.rank(), 1);
    EXPECT_EQ(std::string(e.what()), fmt::format("worker 1 (pid {}, socket 0) exited with status 7", e.pid()));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_FALSE(shm_exists(read_file(dir / "segment.0")));
}

TEST_F(Launcher, AWorkerKilledMidAllreduceStopsTheJobWithinTenSeconds) {
  TempDir dir;
  const auto path = dir.path();
  launch::LaunchOptions options;
  options.arena_bytes = std::size_t{16} << 20;
  ForkedLauncher launcher = start_launcher(3, options, [path](launch::WorkerContext& context) {
    std::span<float> gradients = context.communicator.allocate(std::size_t{4} << 20);
    for (int step = 0;; ++step) {
      context.communicator.allreduce(gradients, comm::ReduceOp::avg);
      if (step == 2) record_worker(path, context);
    }
    return 0;
  });
  const std::vector<pid_t> pids = wait_for_workers(dir.path(), 3);
  const std::string segment = read_file(dir / "segment.0");
  ASSERT_EQ(kill(pids[1], SIGKILL), 0);
  const LauncherResult result = finish_launcher(launcher, 15s);
  ASSERT_TRUE(result.exited) << result.err;
  EXPECT_LT(result.seconds, 10.0);
  EXPECT_TRUE(WIFEXITED(result.status) && WEXITSTATUS(result.status) == 1) << result.status;
  EXPECT_NE(result.err.find(fmt::format("worker 1 (pid {}, socket 0) killed by signal 9", pids[1])), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("shmtrain: worker 0: stopped:"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("[rank 2] shmtrain: worker 2: stopped:"), std::string::npos) << result.err;
  EXPECT_FALSE(shm_exists(segment));
  for (pid_t pid : pids) EXPECT_FALSE(comm::process_alive(pid));
}

TEST_F(Launcher, AKilledLauncherTakesItsWorkersAndTheNextLaunchRemovesItsSegment) {
  // Orphaned workers are re-parented to this process, which can then see them go.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  TempDir dir;
  const auto path = dir.path();
  ForkedLauncher launcher = start_launcher(2, {}, [path](launch::WorkerContext& context) {
    record_worker(path, context);
    for (;;) context.communicator.barrier();
    return 0;
  });
  const std::vector<pid_t> pids = wait_for_workers(dir.path(), 2);
  const std::string segment = read_file(dir / "segment.0");
  ASSERT_EQ(kill(launcher.pid, SIGKILL), 0);
  ASSERT_EQ(waitpid(launcher.pid, nullptr, 0), launcher.pid);
  const auto killed = std::chrono::steady_clock::now();
  for (pid_t pid : pids) {
    while (waitpid(pid, nullptr, WNOHANG) == 0 && std::chrono::steady_clock::now() - killed < 5s) {
      std::this_thread::sleep_for(1ms);
    }
  }
  EXPECT_LT(std::chrono::steady_clock::now() - killed, 2s);
  for (pid_t pid : pids) EXPECT_FALSE(comm::process_alive(pid));
  close(launcher.out_fd);
  close(launcher.err_fd);

  ASSERT_TRUE(shm_exists(segment)) << "nobody was left to remove it";
  launch_here(1, {}, [](launch::WorkerContext&) { return 0; });
  EXPECT_FALSE(shm_exists(segment));
}

TEST_F(Launcher, CtrlCStopsEveryWorkerAndRemovesTheSegment) {
  TempDir dir;
  const auto path = dir.path();
  ForkedLauncher launcher = start_launcher(2, {}, [path](launch::WorkerContext& context) {
    record_worker(path, context);
    for (;;) context.communicator.barrier();
    return 0;
  });
  const std::vector<pid_t> pids = wait_for_workers(dir.path(), 2);
  const std::string segment = read_file(dir / "segment.0");
  ASSERT_EQ(kill(launcher.pid, SIGINT), 0);
  const LauncherResult result = finish_launcher(launcher, 15s);
  ASSERT_TRUE(result.exited) << result.err;
  EXPECT_TRUE(WIFEXITED(result.status) && WEXITSTATUS(result.status) == 130) << result.status << result.err;
  EXPECT_NE(result.err.find("interrupted by signal 2"), std::string::npos) << result.err;
  EXPECT_FALSE(shm_exists(segment));
  for (pid_t pid : pids) EXPECT_FALSE(comm::process_alive(pid));
}

TEST_F(Launcher, OtherRanksLinesArePrefixedWithTheirRank) {
  ForkedLauncher launcher = start_launcher(2, {}, [](launch::WorkerContext& context) {
    fmt::print("hello from {}\npartial line from {}", context.rank, context.rank);
    fmt::print(stderr, "warning from {}\n", context.rank);
    return 0;
  });
  const LauncherResult result = finish_launcher(launcher, 15s);
  ASSERT_TRUE(result.exited);
  EXPECT_TRUE(WIFEXITED(result.status) && WEXITSTATUS(result.status) == 0) << result.err;
  EXPECT_NE(result.out.find("hello from 0\n"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("[rank 0]"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("[rank 1] hello from 1\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("[rank 1] partial line from 1\n"), std::string::npos) << result.out;
  EXPECT_NE(result.err.find("[rank 1] warning from 1\n"), std::string::npos) << result.err;
}

TEST_F(Launcher, RefusesToForkWhileAnotherThreadRuns) {
  // Two threads: the check allows for OpenBLAS's pool, which may or may not be running.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::thread first([released] { released.wait(); });
  std::thread second([released] { released.wait(); });
  try {
    launch_here(1, {}, [](launch::WorkerContext&) { return 0; });
    ADD_FAILURE() << "forked with a thread running";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("before any other thread starts"), std::string::npos) << e.what();
  }
  release.set_value();
  first.join();
  second.join();
}

}  // namespace
}  // namespace shmtrain::testing
