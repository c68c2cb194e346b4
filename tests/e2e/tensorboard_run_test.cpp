// --report_to tensorboard: the run's log and evaluation records land in TensorBoard event files
// under output_dir/runs/<date>_<host>/ with Trainer's tags, every value as metrics.jsonl has it.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/report/tensorboard.hpp"
#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using shmtrain::testing::CliRun;
using shmtrain::testing::run_shmtrain;
using shmtrain::testing::source_dir;
using shmtrain::testing::TempDir;

std::string run_flags(const fs::path& out) {
  return "train --config configs/demo.toml --max_steps 6 --logging_steps 2 --eval_steps 3 --save_steps 0 "
         "--output_dir " + out.string();
}

TEST(TensorBoardRun, EveryRecordOfMetricsJsonlIsInTheEventFile) {
  const TempDir dir;
  const fs::path out = dir / "out";
  const CliRun run = run_shmtrain(run_flags(out) + " --report_to tensorboard", source_dir());
  ASSERT_EQ(run.exit_code, 0) << run.output();
  ASSERT_TRUE(fs::is_directory(out / "runs"));
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(out / "runs")) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filename().string().rfind("events.out.tfevents.", 0), 0u) << files[0];
  std::map<std::pair<std::string, std::int64_t>, float> scalars;
  for (const auto& s : shmtrain::report::read_tensorboard_events(files[0])) scalars[{s.tag, s.step}] = s.value;

  std::ifstream metrics(out / "metrics.jsonl");
  int checked = 0;
  for (std::string line; std::getline(metrics, line);) {
    const nlohmann::ordered_json record = nlohmann::ordered_json::parse(line);
    const std::int64_t step = record["step"].get<std::int64_t>();
    for (const auto& [key, value] : record.items()) {
      if (key == "step" || !value.is_number()) continue;
      const std::string tag = key.rfind("eval_", 0) == 0 ? "eval/" + key.substr(5) : "train/" + key;
      const auto it = scalars.find({tag, step});
      ASSERT_NE(it, scalars.end()) << tag << " at step " << step;
      EXPECT_EQ(it->second, static_cast<float>(value.get<double>())) << tag << " at step " << step;
      ++checked;
    }
  }
  EXPECT_GT(checked, 20);
  EXPECT_TRUE(scalars.count({"train/loss", 2}) == 1);
  EXPECT_TRUE(scalars.count({"eval/accuracy", 3}) == 1);
}

TEST(TensorBoardRun, WithoutReportToThereAreNoEventFilesButAReport) {
  const TempDir dir;
  const CliRun run = run_shmtrain(run_flags(dir / "out") + " --save_steps 3", source_dir());
  ASSERT_EQ(run.exit_code, 0) << run.output();
  EXPECT_FALSE(fs::exists(dir / "out" / "runs"));
  // report.html and run_info.json, also kept current at each checkpoint.
  EXPECT_TRUE(fs::exists(dir / "out" / "report.html"));
  EXPECT_TRUE(fs::exists(dir / "out" / "run_info.json"));
  const nlohmann::json info = nlohmann::json::parse(shmtrain::testing::read_file(dir / "out" / "run_info.json"));
  EXPECT_EQ(info["finished"], true);
  EXPECT_GT(info["machine_gemm_gflops"].get<double>(), 0.0);
  // The rate is the model's own linears' (machine_rate.hpp), and every log record gives its share.
  EXPECT_EQ(info["machine_rate"]["fp32_gflops"], info["machine_gemm_gflops"]);
  EXPECT_GE(info["machine_rate"]["tokens"].get<int>(), 16);
  std::istringstream records(shmtrain::testing::read_file(dir / "out" / "metrics.jsonl"));
  int with_share = 0;
  for (std::string line; std::getline(records, line);) {
    const nlohmann::json r = nlohmann::json::parse(line);
    if (!r.contains("gflops")) continue;
    ASSERT_TRUE(r.contains("gemm_share")) << line;
    EXPECT_NEAR(r["gemm_share"].get<double>(), r["gflops"].get<double>() / info["machine_gemm_gflops"].get<double>(),
                1e-6);
    ++with_share;
  }
  EXPECT_GT(with_share, 0);
  EXPECT_NE(run.output().find("machine: the model's linears over"), std::string::npos) << run.output();

  const CliRun none = run_shmtrain(run_flags(dir / "none") + " --report_to none", source_dir());
  ASSERT_EQ(none.exit_code, 0) << none.output();
  EXPECT_FALSE(fs::exists(dir / "none" / "report.html"));
  EXPECT_FALSE(fs::exists(dir / "none" / "run_info.json"));
}

}  // namespace
