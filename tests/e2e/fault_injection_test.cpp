// A worker killed (or stopped) at each of more than twenty distinct points of a run — while it
// assembles a batch, in forward, in backward, in the exchange, in the optimizer step, while it
// logs, at three moments of a checkpoint write, in evaluation, while the final model is written
// — and each time: the job ends within 10 s (a stopped worker: within --ddp_timeout + 10 s),
// non-zero, naming the worker; nothing of it is in /dev/shm; and rerunning the command resumes
// from the last checkpoint to the losses and weights of a run that never failed.
//
// The faults come from SHMTRAIN_FAULT (common/fault_injection.hpp): the worker signals itself
// at exactly that point, which no outside kill could time.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reference_run.hpp"
#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using shmtrain::testing::CliRun;
using shmtrain::testing::folder_entries;
using shmtrain::testing::logged_losses;
using shmtrain::testing::read_file;
using shmtrain::testing::run_command;
using shmtrain::testing::shmtrain_binary;
using shmtrain::testing::source_dir;
using shmtrain::testing::TempDir;

struct Fault {
  const char* point;
  int hit;
  int rank;
  const char* signal = "kill";
};

// 12 steps, a checkpoint every 3, evaluations at steps 4 and 8 and at the end.
const std::string kFaultRunFlags =
    "train --config configs/demo.toml --nproc_per_node 2 --max_steps 12 --save_steps 3 --logging_steps 1 "
    "--eval_steps 4 --max_eval_samples 96 --report_to none --ddp_timeout 3 --overwrite_output_dir false";

CliRun train(const fs::path& out, const std::string& environment, const std::string& extra = "") {
  return run_command(fmt::format("cd {} && env {} {} {} --output_dir {} {}", source_dir().string(), environment,
                                 shmtrain_binary().string(), kFaultRunFlags, out.string(), extra));
}

// shmtrain's own entries of /dev/shm (other programs' come and go beside the test).
std::vector<std::string> shmtrain_segments() {
  std::vector<std::string> out;
  for (const std::string& name : folder_entries("/dev/shm")) {
    if (name.rfind("shmtrain", 0) == 0) out.push_back(name);
  }
  return out;
}

bool has_checkpoint(const fs::path& out) {
  for (const std::string& name : folder_entries(out)) {
    if (name.rfind("checkpoint-", 0) == 0) return true;
  }
  return false;
}

class FaultInjection : public ::testing::TestWithParam<Fault> {};

TEST_P(FaultInjection, TheJobEndsCleanlyAndResumesToTheSameRun) {
  const Fault fault = GetParam();
  const TempDir dir;
  const CliRun straight = train(dir / "straight", "SHMTRAIN_FAULT=");
  ASSERT_EQ(straight.exit_code, 0) << straight.output();

  const std::vector<std::string> shm_before = shmtrain_segments();
  const fs::path out = dir / "faulted";
  const auto start = std::chrono::steady_clock::now();
  const CliRun failed =
      train(out, fmt::format("SHMTRAIN_FAULT={}:{}:{}:{}", fault.point, fault.hit, fault.signal, fault.rank));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(failed.exit_code, 0) << failed.output();
  EXPECT_LT(seconds, std::string(fault.signal) == "stop" ? 3 + 10 : 10) << failed.output();
  EXPECT_NE(failed.err.find(fmt::format("worker {} (pid", fault.rank)), std::string::npos) << failed.err;
  if (std::string(fault.signal) == "stop") {
    EXPECT_NE(failed.err.find("stopped"), std::string::npos) << failed.err;
  }
  EXPECT_EQ(shmtrain_segments(), shm_before);
  // No process of the job is left (a stopped one included). The pattern's [d] keeps pgrep from
  // finding the shell that runs it.
  EXPECT_NE(run_command("pgrep -f -- '--output_dir " + (dir / "faulte[d]").string() + "'").exit_code, 0);

  // Rerunning the same command resumes from the last checkpoint (or starts over without one).
  const bool checkpoint = has_checkpoint(out);
  const CliRun resumed = train(out, "SHMTRAIN_FAULT=", checkpoint ? "" : "--overwrite_output_dir true");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output();
  if (checkpoint) {
    EXPECT_NE(resumed.out.find("resumed from"), std::string::npos) << resumed.out;
  }
  EXPECT_EQ(logged_losses(out / "metrics.jsonl"), logged_losses(dir / "straight" / "metrics.jsonl"));
  EXPECT_EQ(read_file(out / "model.safetensors"), read_file(dir / "straight" / "model.safetensors"));
  const auto accuracy = [](const fs::path& file) {
    return nlohmann::json::parse(read_file(file))["eval_accuracy"].get<double>();
  };
  EXPECT_EQ(accuracy(out / "eval_results.json"), accuracy(dir / "straight" / "eval_results.json"));
}

const Fault kFaults[] = {
    {"data", 2, 1},           {"data", 7, 0},           {"forward", 1, 1},        {"forward", 5, 0},
    {"forward", 11, 1},       {"backward", 2, 0},       {"backward", 9, 1},       {"exchange", 3, 1},
    {"exchange", 6, 0},       {"exchange", 10, 1},      {"optimizer", 4, 0},      {"optimizer", 8, 1},
    {"log", 5, 1},            {"save.model", 1, 0},     {"save.optimizer", 2, 0}, {"save.commit", 3, 0},
    {"save.commit", 1, 0},    {"eval.forward", 3, 1},   {"eval.forward", 9, 0},   {"eval.gather", 1, 1},
    {"eval.gather", 2, 0},    {"final.model", 1, 0},    {"exchange", 5, 1, "stop"}, {"save.model", 2, 0, "stop"},
};

INSTANTIATE_TEST_SUITE_P(Points, FaultInjection, ::testing::ValuesIn(kFaults),
                         [](const ::testing::TestParamInfo<Fault>& param) {
                           std::string name = fmt::format("{}_{}_rank{}_{}", param.param.point, param.param.hit,
                                                          param.param.rank, param.param.signal);
                           for (char& c : name) c = c == '.' ? '_' : c;
                           return name;
                         });

}  // namespace
