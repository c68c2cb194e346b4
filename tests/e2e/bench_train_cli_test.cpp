// `shmtrain bench train` end to end through the built binary. Speed is never asserted; only that
// every row is there, complete and verified.
#include <map>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace shmtrain::bench {
namespace {

TEST(BenchTrainCli, TinyRunPrintsVerifiedRowsAndRatios) {
  const testing::CliRun run = testing::run_shmtrain(
      "bench train --preset tiny --seq 16 --batch 4 --steps 2 --warmup 1 --nproc_per_node 2 --json");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  std::map<std::string, nlohmann::json> rows;
  std::optional<nlohmann::json> ratios;
  std::size_t start = 0;
  for (std::size_t end; (end = run.out.find('\n', start)) != std::string::npos; start = end + 1) {
    const nlohmann::json line = nlohmann::json::parse(run.out.substr(start, end - start));
    if (line.at("kind") == "ratios") {
      ratios = line;
      continue;
    }
    EXPECT_EQ(line.at("preset"), "tiny");
    EXPECT_TRUE(line.at("verified").get<bool>()) << line.dump();
    EXPECT_GT(line.at("samples_per_s").get<double>(), 0.0);
    for (const char* phase : {"forward_s", "backward_s", "exchange_s", "optimizer_s"}) {
      EXPECT_GE(line.at(phase).get<double>(), 0.0) << phase;
    }
    EXPECT_GT(line.at("forward_s").get<double>(), 0.0);
    rows[line.at("config").get<std::string>()] = line;
  }
  ASSERT_TRUE(rows.count("1xall") && rows.count("Pxpart") && rows.count("1xpart")) << run.out;
  EXPECT_EQ(rows.at("Pxpart").at("workers").get<int>(), 2);
  EXPECT_EQ(rows.at("Pxpart").at("batch").get<int>(), 4);
  EXPECT_EQ(rows.at("1xpart").at("batch").get<int>(), 2);
  ASSERT_TRUE(ratios.has_value()) << run.out;
  EXPECT_GT(ratios->at("speedup_vs_1xall").get<double>(), 0.0);
  EXPECT_GT(ratios->at("scaling_efficiency").get<double>(), 0.0);
  EXPECT_GE(ratios->at("exposed_exchange_share").get<double>(), 0.0);
}


// With real lengths every configuration runs padded to --seq, padded to the longest and
// packed, each verified, and the packed/padded ratios follow.
TEST(BenchTrainCli, LengthsRunEveryLayoutSideBySide) {
  const testing::TempDir dir;
  testing::write_file(dir / "lengths.txt", "5\n30\n2\n11\n1\n9\n16\n3\n");
  const testing::CliRun run = testing::run_shmtrain(
      "bench train --preset tiny --seq 16 --batch 4 --steps 2 --warmup 1 "
      "--nproc_per_node 2 --configs 1xall,Pxpart --json --lengths " +
      (dir / "lengths.txt").string());
  ASSERT_EQ(run.exit_code, 0) << run.output();
  std::map<std::string, int> layouts;
  int padding_ratios = 0;
  std::size_t start = 0;
  for (std::size_t end; (end = run.out.find('\n', start)) != std::string::npos; start = end + 1) {
    const nlohmann::json line = nlohmann::json::parse(run.out.substr(start, end - start));
    if (line.at("kind") == "padding_ratios") {
      EXPECT_GT(line.at("packed_vs_max_length").get<double>(), 0.0);
      ++padding_ratios;
    }
    if (line.at("kind") != "row") continue;
    EXPECT_TRUE(line.at("verified").get<bool>()) << line.dump();
    EXPECT_EQ(line.at("lengths").get<int>(), 8);
    ++layouts[line.at("padding").get<std::string>()];
  }
  EXPECT_EQ(layouts, (std::map<std::string, int>{{"longest", 2}, {"max_length", 2}, {"none", 2}})) << run.out;
  EXPECT_EQ(padding_ratios, 2) << run.out;
}

// The workers' shared arena holds the bf16 copy of the gradients too.
TEST(BenchTrainCli, Bf16GradientsFitTheSharedArena) {
  const testing::CliRun run = testing::run_shmtrain(
      "bench train --preset tiny --seq 16 --batch 4 --steps 1 --warmup 0 --nproc_per_node 2 --ddp_bf16_grads "
      "--configs Pxpart --json");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  EXPECT_NE(run.out.find("\"verified\":true"), std::string::npos) << run.out;
}

TEST(BenchTrainCli, RejectsABatchTheWorkersDoNotDivide) {
  const testing::CliRun run = testing::run_shmtrain("bench train --preset tiny --batch 3 --nproc_per_node 2");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("--batch 3 must be a positive multiple of the 2 workers"), std::string::npos)
      << run.output();
}

}  // namespace
}  // namespace shmtrain::bench
