// run_job on one host: the steps in order, one worker in this process, forked workers with
// the body's arena, a dry run, and restarts. (Under MPI: tests/comm/mpi and the cli tests run
// `train` and `bench allreduce` under mpirun.)
#include "shmtrain/launch/job.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "support/test_support.hpp"

namespace shmtrain::launch {
namespace {

// A body whose work all-reduces each rank's rank + 1 through the shared arena and succeeds
// when the sum is right; `fail_first` runs fail (exit code 7) before the next succeed.
class SumJob final : public JobBody {
 public:
  SumJob(int workers, bool in_process, std::int64_t max_restarts, bool dry_run = false)
      : workers_(workers), in_process_(in_process), max_restarts_(max_restarts), dry_run_(dry_run) {}

  ResolvedJob resolve() override {
    steps.push_back("resolve");
    ResolvedJob job;
    job.source = {"package:1 core:4 pu:1", ""};
    job.placement.nproc_per_node = workers_;
    job.show_plan = ShowPlan::kNever;
    job.in_process = in_process_;
    job.max_restarts = max_restarts_;
    return job;
  }

  bool prepare(const JobProcess& process) override {
    steps.push_back("prepare");
    prepared = process;
    return !dry_run_;
  }

  std::size_t arena_bytes(const JobProcess& process) override {
    steps.push_back("arena");
    return 4096 * static_cast<std::size_t>(process.workers);
  }

  int work(WorkerContext& context) override {
    ++worked;
    if (fail_first > 0) return 7;
    std::span<float> value = context.communicator.allocate(1);
    value[0] = static_cast<float>(context.rank + 1);
    context.communicator.allreduce(value, comm::ReduceOp::sum);
    const int n = context.world_size;
    return value[0] == static_cast<float>(n * (n + 1) / 2) ? 0 : 2;
  }

  void before_restart(const WorkerFailure& failure, std::int64_t restart) override {
    steps.push_back("restart " + std::to_string(restart) + ": " + failure.what());
    --fail_first;
  }

  std::vector<std::string> steps;
  JobProcess prepared;
  int worked = 0;  // in this process
  int fail_first = 0;

 private:
  int workers_;
  bool in_process_;
  std::int64_t max_restarts_;
  bool dry_run_;
};

// A job that forks needs what `shmtrain` sets up at start (tensor/blas_runtime.hpp): OpenBLAS
// without a thread pool (OPENBLAS_NUM_THREADS=1), else setting the compute threads leaves one
// of its threads beside the launcher and launch_workers refuses to fork. This test binary
// starts without it, so such a test runs itself again in a process that has it; returns true
// in the first process, once that one ended (the test's result is the second's).
bool ran_again_with_one_blas_thread() {
  const char* blas = std::getenv("OPENBLAS_NUM_THREADS");
  if (blas != nullptr && std::string(blas) == "1") return false;
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const testing::CliRun run =
      testing::run_command(fmt::format("OPENBLAS_NUM_THREADS=1 '{}' --gtest_filter='{}.{}'",
                                       std::filesystem::read_symlink("/proc/self/exe").string(),
                                       test->test_suite_name(), test->name()));
  EXPECT_EQ(run.exit_code, 0) << run.output();
  EXPECT_NE(run.output().find("[  PASSED  ] 1 test."), std::string::npos) << run.output();
  return true;
}

TEST(RunJob, OneWorkerRunsInThisProcessWithoutAnArena) {
  SumJob job(1, /*in_process=*/true, 0);
  EXPECT_EQ(run_job(job), 0);
  EXPECT_EQ(job.steps, (std::vector<std::string>{"resolve", "prepare"}));
  EXPECT_EQ(job.worked, 1);
  EXPECT_EQ(job.prepared.workers, 1);
  EXPECT_EQ(job.prepared.threads, 4);
  EXPECT_EQ(job.prepared.placement.size(), 1u);
  EXPECT_EQ(job.prepared.mpi, nullptr);
}

TEST(RunJob, SeveralWorkersAreForkedWithTheBodysArena) {
  if (ran_again_with_one_blas_thread()) return;
  SumJob job(3, /*in_process=*/true, 0);
  EXPECT_EQ(run_job(job), 0);
  EXPECT_EQ(job.steps, (std::vector<std::string>{"resolve", "prepare", "arena"}));
  EXPECT_EQ(job.worked, 0);  // every worker was a child
  EXPECT_EQ(job.prepared.workers, 3);
  EXPECT_EQ(job.prepared.placement.size(), 3u);
}

TEST(RunJob, AJobThatMayNotRunInProcessForksItsOneWorker) {
  if (ran_again_with_one_blas_thread()) return;
  SumJob job(1, /*in_process=*/false, 0);
  EXPECT_EQ(run_job(job), 0);
  EXPECT_EQ(job.steps, (std::vector<std::string>{"resolve", "prepare", "arena"}));
  EXPECT_EQ(job.worked, 0);
}

TEST(RunJob, ADryRunStopsAfterPrepare) {
  SumJob job(2, /*in_process=*/true, 0, /*dry_run=*/true);
  EXPECT_EQ(run_job(job), 0);
  EXPECT_EQ(job.steps, (std::vector<std::string>{"resolve", "prepare"}));
}

TEST(RunJob, AFailedJobIsRestartedUpToMaxRestarts) {
  if (ran_again_with_one_blas_thread()) return;
  SumJob job(2, /*in_process=*/true, 2);
  job.fail_first = 1;
  EXPECT_EQ(run_job(job), 0);
  ASSERT_EQ(job.steps.size(), 4u);
  EXPECT_EQ(job.steps[3].rfind("restart 1: worker ", 0), 0u) << job.steps[3];

  SumJob failing(2, /*in_process=*/true, 1);
  failing.fail_first = 2;
  EXPECT_THROW(run_job(failing), WorkerFailure);
  EXPECT_EQ(failing.steps.size(), 4u);  // resolve, prepare, arena, restart 1
}

}  // namespace
}  // namespace shmtrain::launch
