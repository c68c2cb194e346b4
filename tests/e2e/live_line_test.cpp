// What a user watches: on a terminal (a tmux pane, as a user's) the live line shows step, loss,
// samples/s, tokens/s, the exposed exchange's share and the ETA; in a log file it never redraws
// ('\r'), one plain line per logging step instead.
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <unistd.h>

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

std::string demo_flags(const fs::path& out, int steps) {
  return fmt::format("train --config configs/demo.toml --max_steps {} --logging_steps 20 --save_steps 0 "
                     "--do_eval false --output_dir {}",
                     steps, out.string());
}

TEST(LiveLine, ALogFileGetsOnePlainLinePerLoggingStep) {
  const TempDir dir;
  const CliRun run = run_shmtrain(demo_flags(dir / "out", 60), source_dir());
  ASSERT_EQ(run.exit_code, 0) << run.output();
  EXPECT_EQ(run.out.find('\r'), std::string::npos) << "no redrawing in a file";
  int lines = 0;
  for (std::size_t at = run.out.find("\nstep "); at != std::string::npos; at = run.out.find("\nstep ", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 3) << run.out;
  EXPECT_NE(run.out.find("tokens_per_second"), std::string::npos) << run.out;
}

TEST(LiveLine, AClosedPipeDoesNotKillTheRun) {
  const TempDir dir;
  // `| head -1` exits after the first line; the run goes on and finishes its output_dir.
  const CliRun run = run_command(fmt::format("cd {} && bash -c '{} {} --nproc_per_node 2 | head -1; echo ${{PIPESTATUS[0]}} > {}'",
                                             source_dir().string(), shmtrain_binary().string(),
                                             demo_flags(dir / "out", 60), (dir / "status").string()));
  ASSERT_EQ(run.exit_code, 0) << run.output();
  EXPECT_EQ(shmtrain::testing::read_file(dir / "status"), "0\n") << run.output();
  EXPECT_TRUE(fs::exists(dir / "out" / "model.safetensors"));
}

TEST(LiveLine, ATerminalShowsTokensPerSecondAndTheExchangeShare) {
  if (run_command("tmux -V").exit_code != 0) GTEST_SKIP() << "tmux is not installed";
  const TempDir dir;
  const std::string session = fmt::format("shmtrain-live-{}", ::getpid());
  // A long run, watched while it trains, then stopped.
  const std::string command = fmt::format("cd {} && {} {} --nproc_per_node 2", source_dir().string(),
                                          shmtrain_binary().string(), demo_flags(dir / "out", 100000));
  ASSERT_EQ(run_command(fmt::format("tmux new-session -d -s {} -x 220 -y 30 '{}'", session, command)).exit_code, 0);
  std::string pane;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    pane = run_command(fmt::format("tmux capture-pane -p -t {}", session)).out;
    if (pane.find("tokens/s | exchange") != std::string::npos) break;
  }
  run_command(fmt::format("tmux kill-session -t {}", session));
  EXPECT_NE(pane.find("tokens/s | exchange "), std::string::npos) << pane;
  EXPECT_NE(pane.find("samples/s"), std::string::npos) << pane;
  EXPECT_NE(pane.find("| ETA "), std::string::npos) << pane;
}

}  // namespace
