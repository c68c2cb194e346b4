// A worker of a 2-worker `shmtrain train` killed mid-run: the job stops within seconds with a
// non-zero exit naming the rank and the cause, nothing of it is in /dev/shm (one host's segment is
// anonymous shared memory), and the last checkpoint is whole (the run resumes from it). A worker
// stopped mid-run stops the job once --ddp_timeout has passed, naming it and its state.
#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "job_processes.hpp"
#include "reference_run.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST(WorkerFailure, AKilledWorkerStopsTheRunNamingItAndLeavesTheLastCheckpointWhole) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const fs::path out = dir / "out";
  // 20 steps per epoch and thousands of epochs: the run is still training when the worker dies.
  const std::string flags = "train --do_train --nproc_per_node 2 --model_name_or_path " + run.model.string() +
                            " --train_file " + run.train_file.string() + " --output_dir " + out.string() +
                            " --do_eval false --max_seq_length 32 --per_device_train_batch_size 4"
                            " --num_train_epochs 5000 --save_steps 25 --logging_steps 1000 --disable_tqdm";
  std::vector<std::string> argv = split_words(flags);
  argv.insert(argv.begin(), shmtrain_binary().string());
  const pid_t launcher = start_process(argv, dir / "stdout.txt", dir / "stderr.txt");
  ASSERT_GT(launcher, 0);

  const auto started = std::chrono::steady_clock::now();
  while (!fs::exists(out / "checkpoint-50") && std::chrono::steady_clock::now() - started < 60s) {
    std::this_thread::sleep_for(20ms);
  }
  const std::vector<pid_t> workers = children_of(launcher);
  std::vector<pid_t> job = workers;
  job.push_back(launcher);
  EXPECT_EQ(segments_created_by(job), std::vector<std::string>{});
  ASSERT_TRUE(fs::exists(out / "checkpoint-50")) << read_file(dir / "stderr.txt");
  ASSERT_EQ(workers.size(), 2u);

  ASSERT_EQ(kill(workers[1], SIGKILL), 0);
  const auto killed = std::chrono::steady_clock::now();
  int status = 0;
  pid_t reaped = 0;
  while ((reaped = waitpid(launcher, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() - killed < 20s) {
    std::this_thread::sleep_for(10ms);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  if (reaped == 0) {
    kill(launcher, SIGKILL);
    waitpid(launcher, &status, 0);
    FAIL() << "the launcher still ran 20 s after a worker was killed";
  }
  std::printf("the run stopped %.2f s after its worker was killed\n", seconds);
  EXPECT_LT(seconds, 10.0);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_NE(WEXITSTATUS(status), 0);
  const std::string err = read_file(dir / "stderr.txt");
  EXPECT_NE(err.find(fmt::format("worker 1 (pid {}, socket 0) killed by signal 9", workers[1])), std::string::npos)
      << err;
  EXPECT_EQ(segments_created_by(job), std::vector<std::string>{});
  for (pid_t worker : workers) EXPECT_NE(kill(worker, 0), 0) << "worker " << worker << " outlived the job";

  // Rerun into the same output_dir: it resumes from the newest checkpoint, which must be whole.
  std::vector<fs::path> checkpoints;
  for (const auto& entry : fs::directory_iterator(out)) {
    if (entry.path().filename().string().rfind("checkpoint-", 0) == 0) checkpoints.push_back(entry.path());
  }
  ASSERT_FALSE(checkpoints.empty());
  std::sort(checkpoints.begin(), checkpoints.end(), [](const fs::path& a, const fs::path& b) {
    return std::stol(a.filename().string().substr(11)) < std::stol(b.filename().string().substr(11));
  });
  const std::string last = checkpoints.back().filename().string();
  const long step = std::stol(last.substr(11));
  const CliRun resumed = run_shmtrain(flags + fmt::format(" --max_steps {}", step + 2));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output();
  EXPECT_NE(resumed.out.find("resuming from " + last), std::string::npos) << resumed.out;
  EXPECT_NE(resumed.out.find(fmt::format("step {}/{}", step + 2, step + 2)), std::string::npos) << resumed.out;
}

// A worker stopped with SIGSTOP is alive but stalled: with --ddp_timeout 3 the run stops 3 s
// later (not after a fixed ten minutes), non-zero, naming the worker and its state, and nothing
// of the job is left running.
TEST(WorkerFailure, AStoppedWorkerStopsTheRunAfterDdpTimeoutNamingItsState) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const fs::path out = dir / "out";
  const std::string flags = "train --do_train --nproc_per_node 2 --model_name_or_path " + run.model.string() +
                            " --train_file " + run.train_file.string() + " --output_dir " + out.string() +
                            " --do_eval false --max_seq_length 32 --per_device_train_batch_size 4"
                            " --num_train_epochs 5000 --save_steps 25 --logging_steps 1000 --disable_tqdm"
                            " --ddp_timeout 3";
  std::vector<std::string> argv = split_words(flags);
  argv.insert(argv.begin(), shmtrain_binary().string());
  const pid_t launcher = start_process(argv, dir / "stdout.txt", dir / "stderr.txt");
  ASSERT_GT(launcher, 0);

  const auto started = std::chrono::steady_clock::now();
  while (!fs::exists(out / "checkpoint-25") && std::chrono::steady_clock::now() - started < 60s) {
    std::this_thread::sleep_for(20ms);
  }
  const std::vector<pid_t> workers = children_of(launcher);
  ASSERT_TRUE(fs::exists(out / "checkpoint-25")) << read_file(dir / "stderr.txt");
  ASSERT_EQ(workers.size(), 2u);

  ASSERT_EQ(kill(workers[1], SIGSTOP), 0);
  const auto stopped = std::chrono::steady_clock::now();
  int status = 0;
  pid_t reaped = 0;
  while ((reaped = waitpid(launcher, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() - stopped < 30s) {
    std::this_thread::sleep_for(10ms);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - stopped).count();
  if (reaped == 0) {
    for (pid_t worker : workers) kill(worker, SIGKILL);
    kill(launcher, SIGKILL);
    waitpid(launcher, &status, 0);
    FAIL() << "the launcher still ran 30 s after a worker was stopped";
  }
  std::printf("the run stopped %.2f s after its worker was stopped (--ddp_timeout 3)\n", seconds);
  EXPECT_GE(seconds, 3.0);
  EXPECT_LT(seconds, 3.0 + 5.0);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_NE(WEXITSTATUS(status), 0);
  const std::string err = read_file(dir / "stderr.txt");
  EXPECT_NE(err.find(fmt::format("worker 1 (pid {}, socket 0) has not made progress for ", workers[1])),
            std::string::npos)
      << err;
  EXPECT_NE(err.find(" s (state: stopped, T); the job stops; --ddp_timeout sets the limit"), std::string::npos) << err;
  for (pid_t worker : workers) EXPECT_NE(kill(worker, 0), 0) << "worker " << worker << " outlived the job";
}

}  // namespace
}  // namespace shmtrain::testing
