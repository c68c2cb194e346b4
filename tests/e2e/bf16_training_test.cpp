// `shmtrain train --bf16` through the built binary on the PyTorch reference fixture: the bf16
// run tracks the fp32 run and PyTorch's own bf16 autocast run of the same 20 steps
// (tests/fixtures/reference_tiny/bf16_autocast_losses.json, written by
// tools/reference/bf16_autocast_losses.py); --bf16 is refused by name where the CPU cannot.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reference_run.hpp"
#include "shmtrain/tensor/cpu_features.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;

std::string flags_for(const ReferenceRun& run, const fs::path& output_dir, int workers, const std::string& extra) {
  return fmt::format(
      "train --do_train --model_name_or_path {} --train_file {} --do_eval false --output_dir {} --max_seq_length 32"
      " --per_device_train_batch_size {} --nproc_per_node {} --learning_rate 1e-3 --weight_decay 0.01"
      " --lr_scheduler_type constant --shuffle false --logging_steps 1 --num_train_epochs 1 --save_steps 0 {}",
      run.model.string(), run.train_file.string(), output_dir.string(), 8 / workers, workers, extra);
}

std::vector<double> losses_of(const fs::path& output_dir) {
  std::vector<double> losses;
  for (const auto& [step, loss] : metric_by_step(output_dir / "metrics.jsonl", "loss")) losses.push_back(loss);
  return losses;
}

std::vector<double> pytorch_autocast_losses() {
  std::ifstream in(fixtures_dir() / "reference_tiny" / "bf16_autocast_losses.json");
  return nlohmann::json::parse(in)["losses"].get<std::vector<double>>();
}

double worst_relative(const std::vector<double>& actual, const std::vector<double>& expected) {
  double worst = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    worst = std::max(worst, std::abs(actual[i] - expected[i]) / std::abs(expected[i]));
  }
  return worst;
}

#define SKIP_WITHOUT_BF16() \
  if (!tensor::cpu_features().bf16_native()) GTEST_SKIP() << "this CPU has neither AVX512-BF16 nor AMX"

// bf16 keeps 8 bits of mantissa: each GEMM input is off by up to 2^-9 relative. Over 20 steps
// on this fixture that moves the loss by ~0.1% (PyTorch's autocast run: 0.10% from its fp32
// run); the bound is the 2% per step. Against PyTorch's autocast losses, which round
// differently (PyTorch also rounds each linear's output, the GELU and the gradients flowing
// between linears to bf16; shmtrain keeps those in fp32 where they feed non-GEMM work), 1%.
TEST(Bf16Training, TracksTheFp32RunAndPytorchAutocast) {
  SKIP_WITHOUT_BF16();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const CliRun fp32 = run_shmtrain(flags_for(run, dir / "fp32", 1, ""));
  ASSERT_EQ(fp32.exit_code, 0) << fp32.output();
  const CliRun bf16 = run_shmtrain(flags_for(run, dir / "bf16", 1, "--bf16"));
  ASSERT_EQ(bf16.exit_code, 0) << bf16.output();
  EXPECT_NE(bf16.out.find("threads, bf16"), std::string::npos) << bf16.out;
  EXPECT_NE(bf16.out.find("bf16 on oneDNN"), std::string::npos) << bf16.out;

  const std::vector<double> ours_fp32 = losses_of(dir / "fp32");
  const std::vector<double> ours_bf16 = losses_of(dir / "bf16");
  const std::vector<double> torch_bf16 = pytorch_autocast_losses();
  ASSERT_EQ(ours_fp32.size(), 20u);
  ASSERT_EQ(ours_bf16.size(), 20u);
  ASSERT_EQ(torch_bf16.size(), 20u);
  const double vs_fp32 = worst_relative(ours_bf16, ours_fp32);
  const double vs_torch = worst_relative(ours_bf16, torch_bf16);
  std::printf("bf16 losses, worst step: %.3f%% from our fp32 run, %.3f%% from PyTorch's autocast run\n",
              100 * vs_fp32, 100 * vs_torch);
  for (std::size_t i = 0; i < ours_bf16.size(); ++i) {
    EXPECT_NEAR(ours_bf16[i], ours_fp32[i], 0.02 * ours_fp32[i]) << "step " << i + 1;
    EXPECT_NEAR(ours_bf16[i], torch_bf16[i], 0.01 * torch_bf16[i]) << "step " << i + 1;
  }
  // Not the fp32 run under another name.
  EXPECT_GT(vs_fp32, 0.0);
}

// Two workers with half the rows each train what one worker trains in bf16 too (the sums
// differ only in float rounding order; the bf16 roundings are per element, the same).
TEST(Bf16Training, TwoWorkersTrainTheModelOfOne) {
  SKIP_WITHOUT_BF16();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const CliRun one = run_shmtrain(flags_for(run, dir / "p1", 1, "--bf16"));
  ASSERT_EQ(one.exit_code, 0) << one.output();
  const CliRun two = run_shmtrain(flags_for(run, dir / "p2", 2, "--bf16 true"));
  ASSERT_EQ(two.exit_code, 0) << two.output();
  const double worst = worst_relative(losses_of(dir / "p2"), losses_of(dir / "p1"));
  std::printf("bf16, 2 workers vs 1: worst step %.2e relative\n", worst);
  EXPECT_LT(worst, 1e-3);
}

TEST(Bf16Training, ModeIsCheckedAndResolvedAgainstTheCpu) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const CliRun bad = run_shmtrain(flags_for(run, dir / "bad", 1, "--bf16 sometimes --dry_run"));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("--bf16: 'sometimes' is not true, false or auto"), std::string::npos) << bad.output();

  const CliRun on = run_shmtrain(flags_for(run, dir / "on", 1, "--bf16 --dry_run"));
  const CliRun automatic = run_shmtrain(flags_for(run, dir / "auto", 1, "--bf16 auto --dry_run"));
  ASSERT_EQ(automatic.exit_code, 0) << automatic.output();
  if (tensor::cpu_features().bf16_native()) {
    ASSERT_EQ(on.exit_code, 0) << on.output();
    EXPECT_NE(on.out.find("threads, bf16"), std::string::npos) << on.out;
    EXPECT_NE(automatic.out.find("threads, bf16"), std::string::npos) << automatic.out;
  } else {
    EXPECT_NE(on.exit_code, 0);
    EXPECT_NE(on.err.find("--bf16: this CPU has neither AVX512-BF16 nor AMX"), std::string::npos) << on.output();
    EXPECT_NE(automatic.out.find("threads, fp32"), std::string::npos) << automatic.out;
  }
}

}  // namespace
}  // namespace shmtrain::testing
