// A Hugging Face command line as users paste it: HfArgumentParser's spellings of every option
// (generated from the option table), Trainer's flags without effect, refused flags and typos.
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "shmtrain/cli/train_option_table.hpp"
#include "support/test_support.hpp"

namespace {

using shmtrain::cli::OptionSpec;
using shmtrain::cli::OptionType;
using shmtrain::cli::train_option_table;
using shmtrain::testing::CliRun;
using shmtrain::testing::run_shmtrain;
using shmtrain::testing::TempDir;

// The demo's model and data, a dry run: prints the resolved options and stops.
std::string demo_run(const TempDir& dir) {
  return fmt::format(
      "train --dry_run --config_name demo/paraphrase/config.json --tokenizer_name demo/paraphrase --task_name mrpc "
      "--data_dir demo/paraphrase --output_dir {}",
      (dir / "out").string());
}

CliRun dry_run(const TempDir& dir, const std::string& flags) {
  return run_shmtrain(demo_run(dir) + " " + flags, shmtrain::testing::source_dir());
}

std::string dashed(std::string name) {
  for (char& c : name) c = c == '_' ? '-' : c;
  return name;
}

// A value of the option's type that differs from its default, and how the resolved config shows it.
struct Sample {
  std::string typed;
  std::string shown;
};

std::optional<Sample> sample_for(const OptionSpec& spec) {
  static const std::set<std::string> skip = {
      // Options that need other files or change what the dry run reads.
      "model_name_or_path", "config_name", "tokenizer_name", "task_name", "data_dir", "train_file",
      "validation_file", "test_file", "output_dir", "resume_from_checkpoint", "dry_run", "dataset_name",
      "dataset_config_name", "cache_dir", "model_revision", "padding", "pad_to_max_length", "bf16",
      "lr_scheduler_type", "lr_scheduler_kwargs", "eval_strategy", "evaluation_strategy", "save_strategy",
      "logging_strategy", "load_best_model_at_end", "early_stopping_patience", "metric_for_best_model",
      "label_names", "do_eval", "do_train", "do_predict", "doc_stride", "max_seq_length", "threads",
      "text_column_name", "label_column_name"};
  if (skip.count(spec.name) > 0) return std::nullopt;
  switch (spec.type) {
    case OptionType::kBool: return std::nullopt;  // covered by the boolean test
    case OptionType::kInt: return Sample{"7", "7"};
    case OptionType::kFloat: return Sample{"0.25", "0.25"};
    default: return std::nullopt;
  }
}

TEST(HfSpellings, EveryValueOptionTakesBothSpellings) {
  const TempDir dir;
  std::string underscored;
  std::string dashes;
  std::vector<std::pair<std::string, std::string>> expected;
  for (const OptionSpec& spec : train_option_table()) {
    const std::optional<Sample> sample = sample_for(spec);
    if (!sample) continue;
    underscored += fmt::format(" --{} {}", spec.name, sample->typed);
    dashes += fmt::format(" --{}={}", dashed(spec.name), sample->typed);
    expected.emplace_back(spec.name, sample->shown);
  }
  ASSERT_GT(expected.size(), 15u);
  for (const std::string& flags : {underscored, dashes}) {
    const CliRun run = dry_run(dir, flags);
    ASSERT_EQ(run.exit_code, 0) << flags << "\n" << run.output();
    for (const auto& [name, shown] : expected) {
      EXPECT_NE(run.out.find(fmt::format("\n{} = {}\n", name, shown)), std::string::npos) << name << "\n" << run.out;
    }
  }
}

TEST(HfSpellings, EveryBooleanTakesArgparsesForms) {
  const TempDir dir;
  int booleans = 0;
  for (const OptionSpec& spec : train_option_table()) {
    if (spec.type != OptionType::kBool || spec.name == "dry_run" || spec.name == "do_eval" || spec.name == "do_train" || spec.name == "do_predict" ||
        spec.name == "load_best_model_at_end" || spec.name == "pad_to_max_length") {
      continue;
    }
    ++booleans;
    const std::string name = spec.name;
    const std::vector<std::pair<std::string, std::string>> forms = {
        {"--" + name, "true"},          {"--" + dashed(name) + " true", "true"},
        {"--" + name + " False", "false"}, {"--" + name + "=yes", "true"},
        {"--no_" + name, "false"},      {"--no-" + dashed(name), "false"},
        {"--" + name + " 0", "false"},
    };
    for (const auto& [typed, shown] : forms) {
      const CliRun run = dry_run(dir, typed + " --do_train");
      ASSERT_EQ(run.exit_code, 0) << typed << "\n" << run.output();
      EXPECT_NE(run.out.find(fmt::format("\n{} = {}\n", name, shown)), std::string::npos) << typed << "\n" << run.out;
    }
  }
  EXPECT_GT(booleans, 8);
}

TEST(HfSpellings, TrainerFlagsWithoutEffectRunWithANote) {
  const TempDir dir;
  const CliRun run = dry_run(dir,
                             "--do_train --no_cuda --ddp_backend ccl --use_ipex --report_to wandb --use-cpu "
                             "--dataloader_num_workers 4 --optim adamw_torch --fp16 false --push_to_hub False");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  for (const char* flag : {"--no_cuda has no effect", "--ddp_backend ccl has no effect", "--use_ipex has no effect",
                           "--report_to wandb has no effect", "--use-cpu has no effect",
                           "--dataloader_num_workers 4 has no effect"}) {
    EXPECT_NE(run.err.find(flag), std::string::npos) << flag << "\n" << run.err;
  }
  EXPECT_EQ(run.err.find("--optim"), std::string::npos) << run.err;
  EXPECT_EQ(run.err.find("--fp16"), std::string::npos) << run.err;
}

// transformers 5's Trainer flags: --warmup_steps below 1 is a fraction of the steps (it was
// refused as "not an integer"); the removed --no_cuda and --logging_dir run with a note naming
// what replaced them.
TEST(HfSpellings, Transformers5WarmupStepsAndRemovedFlags) {
  const TempDir dir;
  const CliRun run = dry_run(dir, "--do_train --warmup_steps 0.1 --no_cuda --logging_dir " + (dir / "tb").string());
  ASSERT_EQ(run.exit_code, 0) << run.output();
  EXPECT_NE(run.out.find("\nwarmup_steps = 0.1\n"), std::string::npos) << run.out;
  EXPECT_NE(run.err.find("--use_cpu replaces it"), std::string::npos) << run.err;
}

TEST(HfSpellings, FlagsThatWouldChangeResultsAreRefusedWithWhatToUse) {
  const TempDir dir;
  const CliRun fp16 = dry_run(dir, "--do_train --fp16");
  EXPECT_EQ(fp16.exit_code, 2);
  EXPECT_NE(fp16.err.find("--fp16 is not computed on CPUs: use --bf16"), std::string::npos) << fp16.err;
  const CliRun optim = dry_run(dir, "--do_train --optim adafactor");
  EXPECT_EQ(optim.exit_code, 2);
  EXPECT_NE(optim.err.find("use --optim adamw_torch"), std::string::npos) << optim.err;
  const CliRun push = dry_run(dir, "--do_train --push_to_hub");
  EXPECT_EQ(push.exit_code, 2);
  EXPECT_NE(push.err.find("uploads nothing"), std::string::npos) << push.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST(HfSpellings, UnknownFlagsAreNamedOnceInTypedOrderWithTheClosest) {
  const TempDir dir;
  // (--learning_rat would be --learning_rate: argparse takes a flag's unambiguous prefix.)
  const CliRun run = dry_run(dir, "--do_train --lerning_rate 3e-5 --per_device_train_batchsize 8 --frobnicate");
  EXPECT_EQ(run.exit_code, 2);
  const std::size_t first = run.err.find("unknown flag --lerning_rate (did you mean --learning_rate?)");
  const std::size_t second =
      run.err.find("unknown flag --per_device_train_batchsize (did you mean --per_device_train_batch_size?)");
  const std::size_t third = run.err.find("unknown flag --frobnicate");
  ASSERT_NE(first, std::string::npos) << run.err;
  ASSERT_NE(second, std::string::npos) << run.err;
  ASSERT_NE(third, std::string::npos) << run.err;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_EQ(run.err.find("3e-5"), std::string::npos) << "a value is not a flag: " << run.err;
  EXPECT_EQ(run.err.find("not expected"), std::string::npos) << run.err;
}

TEST(HfSpellings, TorchrunsWorkerCount) {
  const TempDir dir;
  const CliRun dashes = dry_run(dir, "--do_train --nproc-per-node 1");
  ASSERT_EQ(dashes.exit_code, 0) << dashes.output();
  const CliRun automatic = dry_run(dir, "--do_train --nproc_per_node auto");
  ASSERT_EQ(automatic.exit_code, 0) << automatic.output();
}

TEST(HfSpellings, AValueFlagWithoutItsValueIsNamed) {
  const TempDir dir;
  const CliRun run = dry_run(dir, "--do_train --learning_rate --bf16");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--learning_rate needs a value"), std::string::npos) << run.err;
}

}  // namespace
