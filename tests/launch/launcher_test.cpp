#include "shmtrain/launch/launcher.hpp"

#include <linux/mempolicy.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <future>
#include <thread>

#include <tbb/parallel_for.h>

#include "launcher_harness.hpp"
#include "shmtrain/comm/shm/segment.hpp"
#include "shmtrain/tensor/threads.hpp"

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

TEST_F(Launcher, EveryRankRunsWithItsPlacement) {
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
}

// The cause, not the consequence, whatever order the workers end in: worker 1 reports a dead
// peer first (as a peer does when it sees worker 0 gone before the launcher reaps it), and the
// job is already stopping when worker 0's death by SIGKILL, sent by nobody in the job, is reaped.
TEST_F(Launcher, AWorkerKilledFromOutsideIsTheCauseEvenWhenAPeerReportedFirst) {
  try {
    launch_here(2, {}, [](launch::WorkerContext& context) {
      if (context.rank == 1) return launch::kExitPeerFailure;
      std::this_thread::sleep_for(200ms);  // inside the 1 s before the launcher's SIGTERM
      raise(SIGKILL);
      return 0;
    });
    FAIL() << "the job's failure went unreported";
  } catch (const launch::WorkerFailure& e) {
    EXPECT_EQ(e.rank(), 0) << e.what();
    EXPECT_EQ(std::string(e.what()), fmt::format("worker 0 (pid {}, socket 0) killed by signal 9 (Killed)", e.pid()));
  }
}

// A peer's report stands as the failure when nothing else failed: the job's own SIGTERM, which
// ends the worker still running, is not taken for a cause.
TEST_F(Launcher, APeersReportIsTheFailureWhenTheOthersEndByTheJobsOwnSignal) {
  try {
    launch_here(2, {}, [](launch::WorkerContext& context) {
      if (context.rank == 1) return launch::kExitPeerFailure;
      for (;;) std::this_thread::sleep_for(10ms);  // ended by the launcher's SIGTERM
      return 0;
    });
    FAIL() << "the job's failure went unreported";
  } catch (const launch::WorkerFailure& e) {
    EXPECT_EQ(e.rank(), 1) << e.what();
    EXPECT_EQ(std::string(e.what()), fmt::format("worker 1 (pid {}, socket 0) exited with status 3", e.pid()));
  }
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
  ASSERT_EQ(kill(pids[1], SIGKILL), 0);
  const LauncherResult result = finish_launcher(launcher, 15s);
  ASSERT_TRUE(result.exited) << result.err;
  EXPECT_LT(result.seconds, 10.0);
  EXPECT_TRUE(WIFEXITED(result.status) && WEXITSTATUS(result.status) == 1) << result.status;
  EXPECT_NE(result.err.find(fmt::format("worker 1 (pid {}, socket 0) killed by signal 9", pids[1])), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("shmtrain: worker 0: stopped:"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("[rank 2] shmtrain: worker 2: stopped:"), std::string::npos) << result.err;
  for (pid_t pid : pids) EXPECT_FALSE(comm::process_alive(pid));
}

// A worker stopped with SIGSTOP (a debugger, Ctrl-Z on its pid) is alive but never arrives: its
// heartbeat stands still, and after the stall timeout the launcher kills it and stops the job
// naming it and its state; the peer that waited for it says why it stopped too.
TEST_F(Launcher, AStoppedWorkerStopsTheJobWithinTheStallTimeoutNamingItsState) {
  TempDir dir;
  const auto path = dir.path();
  launch::LaunchOptions options;
  options.arena_bytes = std::size_t{4} << 20;
  options.comm.transport.stall_timeout = 2s;
  ForkedLauncher launcher = start_launcher(2, options, [path](launch::WorkerContext& context) {
    std::span<float> gradients = context.communicator.allocate(std::size_t{1} << 20);
    for (int step = 0;; ++step) {
      context.communicator.allreduce(gradients, comm::ReduceOp::avg);
      if (step == 2) record_worker(path, context);
    }
    return 0;
  });
  const std::vector<pid_t> pids = wait_for_workers(dir.path(), 2);
  ASSERT_EQ(kill(pids[1], SIGSTOP), 0);
  const LauncherResult result = finish_launcher(launcher, 20s);
  ASSERT_TRUE(result.exited) << result.err;
  EXPECT_LT(result.seconds, 2.0 + 5.0);
  EXPECT_TRUE(WIFEXITED(result.status) && WEXITSTATUS(result.status) == 1) << result.status;
  EXPECT_NE(result.err.find(fmt::format("launcher: worker 1 (pid {}, socket 0) has not made progress for ", pids[1])),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find(" s (state: stopped, T); the job stops; --ddp_timeout sets the limit\n"),
            std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("shmtrain: worker 0: stopped:"), std::string::npos) << result.err;
  for (pid_t pid : pids) EXPECT_FALSE(comm::process_alive(pid));
}

// Rank 0 "writes a checkpoint" for 3 stall timeouts while rank 1 waits for it: rank 0's
// heartbeat thread beats through the sleep, so neither rank 1 nor the launcher gives up.
TEST_F(Launcher, AWorkerBusyForLongerThanTheStallTimeoutIsWaitedFor) {
  launch::LaunchOptions options;
  options.comm.transport.stall_timeout = 1s;
  ForkedLauncher launcher = start_launcher(2, options, [](launch::WorkerContext& context) {
    context.communicator.barrier();
    if (context.rank == 0) std::this_thread::sleep_for(3s);
    context.communicator.barrier();
    return 0;
  });
  const LauncherResult result = finish_launcher(launcher, 20s);
  ASSERT_TRUE(result.exited) << result.err;
  EXPECT_TRUE(WIFEXITED(result.status) && WEXITSTATUS(result.status) == 0) << result.status << result.err;
  EXPECT_GE(result.seconds, 3.0);
  EXPECT_EQ(result.err.find("progress"), std::string::npos) << result.err;
}

// Ctrl-Z stops the launcher and every worker together; fg resumes them. Every heartbeat stood
// still for longer than the stall timeout meanwhile, and so did every observer: the job carries on.
TEST_F(Launcher, AJobStoppedAsAWholeAndResumedCarriesOn) {
  TempDir dir;
  const auto path = dir.path();
  launch::LaunchOptions options;
  options.comm.transport.stall_timeout = 2s;
  ForkedLauncher launcher = start_launcher(2, options, [path](launch::WorkerContext& context) {
    record_worker(path, context);
    for (;;) {
      float done = context.rank == 0 && std::filesystem::exists(path / "done") ? 1.0f : 0.0f;
      context.communicator.broadcast({&done, 1}, 0);
      if (done != 0.0f) return 0;
      std::this_thread::sleep_for(10ms);
    }
  });
  std::vector<pid_t> job = wait_for_workers(dir.path(), 2);
  job.push_back(launcher.pid);
  for (pid_t pid : job) ASSERT_EQ(kill(pid, SIGSTOP), 0);
  std::this_thread::sleep_for(5s);
  for (pid_t pid : job) ASSERT_EQ(kill(pid, SIGCONT), 0);
  std::this_thread::sleep_for(1s);
  write_file(dir / "done", "");
  const LauncherResult result = finish_launcher(launcher, 20s);
  ASSERT_TRUE(result.exited) << result.err;
  EXPECT_TRUE(WIFEXITED(result.status) && WEXITSTATUS(result.status) == 0) << result.status << result.err;
  EXPECT_EQ(result.err.find("progress"), std::string::npos) << result.err;
}

// The single-host path creates nothing in /dev/shm: the segment is an anonymous shared mapping
// the workers inherit (comm/shm/segment.hpp), so a container's 64 MiB /dev/shm does not limit
// the job (tests/e2e/cli_test.cpp runs one under it) and nothing can be left there.
TEST_F(Launcher, ATwoWorkerJobCreatesNothingInDevShm) {
  TempDir dir;
  const auto path = dir.path();
  launch::LaunchOptions options;
  options.arena_bytes = std::size_t{1} << 20;
  ForkedLauncher launcher = start_launcher(2, options, [path](launch::WorkerContext& context) {
    std::span<float> arena = context.communicator.allocate(1000);
    std::fill(arena.begin(), arena.end(), 1.0f);
    context.communicator.allreduce(arena, comm::ReduceOp::sum);
    record_worker(path, context);
    while (!std::filesystem::exists(path / "go")) std::this_thread::sleep_for(5ms);
    context.communicator.barrier();
    return arena[999] == 2.0f ? 0 : 9;
  });
  std::vector<pid_t> pids = wait_for_workers(dir.path(), 2);
  pids.push_back(launcher.pid);
  // While the job runs, with its segment in use: no process of it maps or holds a file in
  // /dev/shm (a named segment unlinked early would still show as "/dev/shm/... (deleted)").
  for (pid_t pid : pids) {
    for (const std::string& held : dev_shm_files_held(pid)) ADD_FAILURE() << "pid " << pid << " " << held;
  }
  EXPECT_EQ(segments_created_by(pids), std::vector<std::string>{});
  write_file(dir / "go", "");
  const LauncherResult result = finish_launcher(launcher, 15s);
  ASSERT_TRUE(result.exited) << result.err;
  EXPECT_TRUE(WIFEXITED(result.status) && WEXITSTATUS(result.status) == 0) << result.status << result.err;
  EXPECT_EQ(segments_created_by(pids), std::vector<std::string>{});
}

TEST_F(Launcher, AKilledLauncherTakesItsWorkersAndLeavesNothingInDevShm) {
  // Orphaned workers are re-parented to this process, which can then see them go.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  TempDir dir;
  const auto path = dir.path();
  ForkedLauncher launcher = start_launcher(2, {}, [path](launch::WorkerContext& context) {
    record_worker(path, context);
    for (;;) context.communicator.barrier();
    return 0;
  });
  std::vector<pid_t> pids = wait_for_workers(dir.path(), 2);
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
  // Nobody was left to clean up, and nothing needs it: the segment went with its last process.
  pids.push_back(launcher.pid);
  EXPECT_EQ(segments_created_by(pids), std::vector<std::string>{});
}

// DESIGN: each worker's part of the arena lives on its own NUMA node. The segment is never
// mbind'ed: a worker bound to its node (topo/binding) places the pages it touches first there.
// One worker per NUMA node of this machine, bound as `shmtrain train` binds them.
TEST_F(Launcher, EachWorkersArenaLandsOnItsNumaNode) {
  const topo::Topology topology = topo::Topology::load({});
  const int nodes = topology.numa_node_count();
  const topo::PlacementPlan plan =
      topo::make_plan(topology, {.nproc_per_node = std::max(2, nodes), .unit = topo::PlacementUnit::numa});
  ASSERT_TRUE(plan.bind);
  TempDir dir;
  const auto path = dir.path();
  launch::LaunchOptions options;
  options.arena_bytes = std::size_t{4} << 20;
  launch::launch_workers(topology, plan, options, [path](launch::WorkerContext& context) {
    std::span<float> arena = context.communicator.allocate(std::size_t{1} << 20);
    std::fill(arena.begin(), arena.end(), static_cast<float>(context.rank));
    std::string found;
    for (const float* page : {arena.data(), arena.data() + arena.size() - 1}) {
      int node = -1;
      if (syscall(SYS_get_mempolicy, &node, nullptr, 0UL, page, MPOL_F_NODE | MPOL_F_ADDR) != 0) {
        throw SystemError("get_mempolicy", errno);
      }
      found += fmt::format("{} ", node);
    }
    write_file(path / fmt::format("nodes.{}", context.rank), found);
    context.communicator.barrier();
    return 0;
  });
  for (const topo::PlacementEntry& entry : plan.workers) {
    ASSERT_EQ(entry.numa_nodes.size(), 1u);
    const int node = entry.numa_nodes.front();
    EXPECT_EQ(read_file(dir / fmt::format("nodes.{}", entry.rank)), fmt::format("{} {} ", node, node))
        << "worker " << entry.rank;
  }
  if (nodes < 2) GTEST_SKIP() << "one NUMA node here: both workers' arenas were checked on node 0 only";
}

TEST_F(Launcher, CtrlCStopsEveryWorker) {
  TempDir dir;
  const auto path = dir.path();
  ForkedLauncher launcher = start_launcher(2, {}, [path](launch::WorkerContext& context) {
    record_worker(path, context);
    for (;;) context.communicator.barrier();
    return 0;
  });
  const std::vector<pid_t> pids = wait_for_workers(dir.path(), 2);
  ASSERT_EQ(kill(launcher.pid, SIGINT), 0);
  const LauncherResult result = finish_launcher(launcher, 15s);
  ASSERT_TRUE(result.exited) << result.err;
  EXPECT_TRUE(WIFEXITED(result.status) && WEXITSTATUS(result.status) == 130) << result.status << result.err;
  EXPECT_NE(result.err.find("interrupted by signal 2"), std::string::npos) << result.err;
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

TEST_F(Launcher, ForksRightAfterTheComputeThreadsWereStopped) {
  // What the training launcher does: tokenize on oneTBB's threads, stop them, fork at once. A
  // stopped thread can still be counted by the kernel for a moment (one round in a few hundred here
  // without the launcher's wait), which once failed a CI run. OpenBLAS's pool (OPENBLAS_NUM_THREADS is not 1
  // here) is running too, and shrunk to one thread by set_compute_threads.
  const topo::Topology topology = topo::Topology::load({"package:1 core:4 pu:1", ""});
  const topo::PlacementPlan plan = topo::make_plan(topology, {.nproc_per_node = 1});
  tensor::set_compute_threads(2);
  // 600 rounds take ~6 s on an idle 2-core machine; on a loaded one (a build beside the suite)
  // each fork is slower, so past 20 s the rounds stop, after at least 50, inside the 60 s alarm.
  const auto start = std::chrono::steady_clock::now();
  for (int round = 0; round < 600 && (round < 50 || std::chrono::steady_clock::now() - start < 20s); ++round) {
    std::atomic<long> sum{0};
    tbb::parallel_for(0, 1000, [&sum](int i) { sum += i; });
    tensor::stop_compute_threads();
    ASSERT_NO_THROW(launch::launch_workers(topology, plan, {}, [](launch::WorkerContext&) { return 0; }))
        << "round " << round;
  }
}

}  // namespace
}  // namespace shmtrain::testing
