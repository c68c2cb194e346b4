// --max_restarts (torchrun's): a worker killed mid-run takes the job down and the launcher
// starts it again from the last checkpoint, to the losses of a run that was never killed.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reference_run.hpp"
#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using shmtrain::testing::CliRun;
using shmtrain::testing::logged_losses;
using shmtrain::testing::read_file;
using shmtrain::testing::run_command;
using shmtrain::testing::run_shmtrain;
using shmtrain::testing::shmtrain_binary;
using shmtrain::testing::source_dir;
using shmtrain::testing::TempDir;

const std::string kRestartRunFlags =
    "train --config configs/demo.toml --nproc_per_node 2 --max_steps 60 --save_steps 20 --logging_steps 5 "
    "--do_eval false --report_to none";

TEST(MaxRestarts, AKilledWorkerRestartsTheJobFromItsLastCheckpoint) {
  const TempDir dir;
  const CliRun straight = run_shmtrain(kRestartRunFlags + " --output_dir " + (dir / "straight").string(), source_dir());
  ASSERT_EQ(straight.exit_code, 0) << straight.output();

  const fs::path out = dir / "restarted";
  const std::string start = fmt::format(
      "(cd {} && {} {} --max_restarts 2 --output_dir {} > {} 2>&1 & echo $! > {}; wait $!; echo $? > {}) "
      "> /dev/null 2>&1 & echo started",
      source_dir().string(), shmtrain_binary().string(), kRestartRunFlags, out.string(), (dir / "log").string(),
      (dir / "launcher.pid").string(), (dir / "exit").string());
  ASSERT_EQ(run_command(start).exit_code, 0);
  // Once the first checkpoint is written, one worker is killed.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!fs::exists(out / "checkpoint-20") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(fs::exists(out / "checkpoint-20"));
  std::string launcher = read_file(dir / "launcher.pid");
  while (!launcher.empty() && launcher.back() == '\n') launcher.pop_back();
  const CliRun kill = run_command(
      fmt::format("worker=$(pgrep -P {} | tail -1); kill -9 $worker && echo killed $worker", launcher));
  ASSERT_EQ(kill.exit_code, 0) << kill.output();
  while (!fs::exists(dir / "exit") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  if (!fs::exists(dir / "exit")) run_command("kill " + launcher);
  ASSERT_TRUE(fs::exists(dir / "exit"));
  const std::string log = read_file(dir / "log");
  EXPECT_EQ(read_file(dir / "exit"), "0\n") << log;
  EXPECT_NE(log.find("restart 1 of 2: from " + (out / "checkpoint-").string()), std::string::npos) << log;
  EXPECT_NE(log.find("resumed from"), std::string::npos) << log;
  EXPECT_EQ(logged_losses(out / "metrics.jsonl"), logged_losses(dir / "straight" / "metrics.jsonl"));
  EXPECT_EQ(read_file(out / "model.safetensors"), read_file(dir / "straight" / "model.safetensors"));
}

TEST(MaxRestarts, WithoutRestartsAFailedJobFailsAsBefore) {
  const TempDir dir;
  // A worker that fails at once: a resume from a checkpoint folder that is not one.
  fs::create_directories(dir / "bogus");
  const CliRun run = run_shmtrain(kRestartRunFlags + " --max_restarts 0 --output_dir " + (dir / "out").string() +
                                      " --resume_from_checkpoint " + (dir / "bogus").string(),
                                  source_dir());
  EXPECT_EQ(run.exit_code, 1) << run.output();
  EXPECT_EQ(run.err.find("restart"), std::string::npos) << run.err;
}

}  // namespace
