// output_dir belongs to one run at a time, and a run that fails before writing anything leaves
// no folder behind.
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using shmtrain::testing::CliRun;
using shmtrain::testing::run_command;
using shmtrain::testing::run_shmtrain;
using shmtrain::testing::shmtrain_binary;
using shmtrain::testing::source_dir;
using shmtrain::testing::TempDir;

TEST(OutputDirLock, ASecondRunOnTheSameFolderIsRefusedWhileTheFirstRuns) {
  const TempDir dir;
  const fs::path out = dir / "out";
  const std::string flags = "train --config configs/demo.toml --save_steps 0 --logging_steps 1 --output_dir " +
                            out.string();
  // The first run trains for long in the background; its pid goes to a file.
  const std::string start = fmt::format("cd {} && ({} {} --max_steps 1000000 > {} 2>&1 & echo $! > {})",
                                        source_dir().string(), shmtrain_binary().string(), flags,
                                        (dir / "first.log").string(), (dir / "first.pid").string());
  ASSERT_EQ(run_command(start).exit_code, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(out / "metrics.jsonl") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(fs::exists(out / "metrics.jsonl")) << "the first run did not start training";

  const CliRun second = run_shmtrain(flags + " --max_steps 2 --overwrite_output_dir", source_dir());
  run_command(fmt::format("kill $(cat {})", (dir / "first.pid").string()));
  EXPECT_EQ(second.exit_code, 1) << second.output();
  EXPECT_NE(second.err.find("is in use by another shmtrain run"), std::string::npos) << second.err;
  EXPECT_TRUE(fs::exists(out / "metrics.jsonl")) << "the second run touched nothing";
}

TEST(OutputDirLock, ARunThatFailsBeforeWritingLeavesNoFolder) {
  const TempDir dir;
  const fs::path out = dir / "never";
  const CliRun run =
      run_shmtrain("train --config configs/demo.toml --task_name nonsense --output_dir " + out.string(), source_dir());
  EXPECT_EQ(run.exit_code, 1) << run.output();
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
