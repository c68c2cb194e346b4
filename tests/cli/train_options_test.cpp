// The options of `shmtrain train`: the TOML config file, command-line values, precedence and
// the messages for bad ones.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "shmtrain/cli/train_option_table.hpp"
#include "shmtrain/common/error.hpp"
#include "support/test_support.hpp"

namespace shmtrain::cli {
namespace {

using shmtrain::testing::error_of;
using shmtrain::testing::TempDir;
using shmtrain::testing::write_file;
using train::TrainOptions;

TEST(TrainOptions, DefaultsAreHuggingFaces) {
  TrainOptions options;
  EXPECT_DOUBLE_EQ(options.learning_rate, 5e-5);
  EXPECT_EQ(options.per_device_train_batch_size, 8);
  EXPECT_DOUBLE_EQ(options.num_train_epochs, 3.0);
  EXPECT_EQ(options.lr_scheduler_type, optim::LrSchedule::kLinear);
  EXPECT_DOUBLE_EQ(options.max_grad_norm, 1.0);
  EXPECT_EQ(options.seed, 42);
  EXPECT_FALSE(options.max_seq_length.has_value());
  EXPECT_EQ(options.seq_length(), 128);  // run_glue.py's
  // run_qa.py's: max_seq_length 384, doc_stride 128, n_best_size 20, max_answer_length 30.
  TrainOptions squad;
  squad.task_name = "squad";
  EXPECT_TRUE(squad.question_answering());
  EXPECT_EQ(squad.seq_length(), 384);
  EXPECT_EQ(squad.doc_stride, 128);
  EXPECT_EQ(squad.n_best_size, 20);
  EXPECT_EQ(squad.max_answer_length, 30);
  squad.max_seq_length = 256;
  EXPECT_EQ(squad.seq_length(), 256);
  resolve_task_defaults(options);
  EXPECT_EQ(options.max_seq_length, 128);
}

// TrainingArguments' semantics: evaluation only when asked for, or when an eval_strategy is
// set (steps: every eval_steps, defaulting to logging_steps); a strategy that is not one is
// named; load_best_model_at_end needs checkpoints where the evaluations are.
TEST(TrainOptions, StrategiesResolveAsTrainingArgumentsDo) {
  TrainOptions options;
  EXPECT_FALSE(options.do_eval);
  options.eval_strategy = "steps";
  options.logging_steps = 25;
  resolve_task_defaults(options);
  EXPECT_TRUE(options.do_eval);
  EXPECT_EQ(options.eval_steps, 25);
  TrainOptions epoch;
  epoch.eval_strategy = "epoch";
  epoch.save_strategy = "epoch";
  epoch.logging_strategy = "no";
  resolve_task_defaults(epoch);
  EXPECT_TRUE(epoch.do_eval && epoch.eval_each_epoch && epoch.save_each_epoch);
  EXPECT_EQ(epoch.eval_steps, 0);
  EXPECT_EQ(epoch.save_steps, 0);
  TrainOptions bad;
  bad.save_strategy = "sometimes";
  EXPECT_EQ(error_of([&] { resolve_task_defaults(bad); }), "save_strategy 'sometimes' is not a strategy: use no, steps or epoch");
  TrainOptions best;
  best.output_dir = "out";
  best.model_name_or_path = "m";
  best.eval_strategy = "steps";
  best.eval_steps = 30;
  best.save_steps = 50;
  best.load_best_model_at_end = true;
  resolve_task_defaults(best);
  EXPECT_NE(error_of([&] { validate_train_options(best); }).find("save_steps a multiple of eval_steps"), std::string::npos);
}

TEST(TrainOptions, ConfigFileSetsEveryKind) {
  const TempDir dir;
  write_file(dir / "c.toml",
             "# a comment\n"
             "model_name_or_path = \"bert-base-cased\"\n"
             "task_name = \"mrpc\"\n"
             "learning_rate = 2e-5\n"
             "num_train_epochs = 3      # an integer where a float is expected is fine\n"
             "per_device_train_batch_size = 32\n"
             "shuffle = false\n"
             "hidden_dropout_prob = 0.0\n");
  TrainOptions options;
  apply_config_file(dir / "c.toml", options);
  EXPECT_EQ(options.model_name_or_path, "bert-base-cased");
  EXPECT_EQ(options.task_name, "mrpc");
  EXPECT_DOUBLE_EQ(options.learning_rate, 2e-5);
  EXPECT_DOUBLE_EQ(options.num_train_epochs, 3.0);
  EXPECT_EQ(options.per_device_train_batch_size, 32);
  EXPECT_FALSE(options.shuffle);
  ASSERT_TRUE(options.hidden_dropout_prob.has_value());
  EXPECT_DOUBLE_EQ(*options.hidden_dropout_prob, 0.0);
}

TEST(TrainOptions, ConfigFileErrorsNameTheFileLineAndKey) {
  const TempDir dir;
  const auto error_for = [&](const std::string& text) {
    write_file(dir / "c.toml", text);
    TrainOptions options;
    return error_of([&] { apply_config_file(dir / "c.toml", options); });
  };
  const std::string path = (dir / "c.toml").string();
  EXPECT_EQ(error_for("seed = 1\nlearning_rat = 1e-3\n"),
            path + ":2: unknown key 'learning_rat' (`shmtrain train --help` lists the options)");
  EXPECT_EQ(error_for("\n\nper_device_train_batch_size = \"32\"\n"),
            path + ":3: per_device_train_batch_size must be an integer");
  EXPECT_EQ(error_for("per_device_train_batch_size = 0\n"),
            path + ":1: per_device_train_batch_size must be >= 1, got 0");
  EXPECT_EQ(error_for("hidden_dropout_prob = 1.5\n"), path + ":1: hidden_dropout_prob must be <= 1, got 1.5");
  EXPECT_EQ(error_for("gradient_accumulation_steps = 9000000000000000000\n"),
            path + ":1: gradient_accumulation_steps must be <= 1048576, got 9000000000000000000");
  EXPECT_EQ(error_for("threads = 1000000\n"), path + ":1: threads must be <= 4096, got 1000000");
  EXPECT_EQ(error_for("shuffle = \"no\"\n"), path + ":1: shuffle must be true or false");
  EXPECT_EQ(error_for("[training]\nseed = 1\n"),
            path + ":1: unknown key 'training' (`shmtrain train --help` lists the options)");
  EXPECT_EQ(error_for("seed = [1, 2]\n"), path + ":1: seed must be a single value, not a list");
  EXPECT_NE(error_for("seed = = 1\n").find(path + ":1: not valid TOML"), std::string::npos);
  EXPECT_EQ(error_of([&] {
              TrainOptions options;
              apply_config_file(dir / "missing.toml", options);
            }),
            (dir / "missing.toml").string() +
                ": config file not found (--config takes a TOML file such as configs/demo.toml)");
}

TEST(TrainOptions, CommandLineTextIsParsedByType) {
  const OptionSpec& shuffle = *find_train_option("shuffle");
  EXPECT_EQ(std::get<bool>(parse_option_text(shuffle, "")), true);  // `--shuffle` alone
  EXPECT_EQ(std::get<bool>(parse_option_text(shuffle, "False")), false);
  EXPECT_EQ(std::get<bool>(parse_option_text(shuffle, "1")), true);
  EXPECT_EQ(error_of([&] { parse_option_text(shuffle, "maybe"); }), "--shuffle: 'maybe' is not a boolean");
  const OptionSpec& steps = *find_train_option("max_steps");
  EXPECT_EQ(std::get<std::int64_t>(parse_option_text(steps, "-1")), -1);
  EXPECT_EQ(error_of([&] { parse_option_text(steps, "10x"); }), "--max_steps: '10x' is not an integer");
  const OptionSpec& lr = *find_train_option("learning_rate");
  EXPECT_DOUBLE_EQ(std::get<double>(parse_option_text(lr, "2e-5")), 2e-5);
  EXPECT_EQ(error_of([&] { parse_option_text(lr, "fast"); }), "--learning_rate: 'fast' is not a number");
  EXPECT_EQ(find_train_option("no_such_option"), nullptr);
}

TEST(TrainOptions, CrossOptionRulesNameTheOptions) {
  TrainOptions options;
  EXPECT_EQ(error_of([&] { validate_train_options(options); }),
            "output_dir is not set: pass --output_dir DIR or set it in the config");
  options.output_dir = "out";
  EXPECT_NE(error_of([&] { validate_train_options(options); }).find("no model: pass --model_name_or_path"),
            std::string::npos);
  options.config_name = "config.json";
  EXPECT_EQ(error_of([&] { validate_train_options(options); }),
            "config_name needs tokenizer_name (a vocab.txt, tokenizer.json or their folder)");
  options.tokenizer_name = "vocab.txt";
  // As TrainingArguments: nothing is done unless asked for.
  EXPECT_NE(error_of([&] { validate_train_options(options); }).find("nothing to do (pass --do_train"), std::string::npos);
  options.do_train = true;
  EXPECT_EQ(error_of([&] { validate_train_options(options); }), "(no InputError)");
  options.max_steps = 0;
  EXPECT_NE(error_of([&] { validate_train_options(options); }).find("max_steps must be a positive number"),
            std::string::npos);
  options.max_steps = -1;
  options.task_name = "squad";
  options.max_seq_length = 128;
  EXPECT_EQ(
      error_of([&] { validate_train_options(options); }),
      "doc_stride 128 must be smaller than max_seq_length 128: consecutive windows of a context overlap by "
      "doc_stride tokens");
}

TEST(TrainOptions, ResolvedConfigRoundTripsThroughTheConfigFile) {
  TrainOptions options;
  options.model_name_or_path = "models/bert \"base\"";
  // Characters TOML forbids raw in a string: escaped by toml++, read back the same.
  options.output_dir = std::string("runs/a\x01b\x7f\\c\td\ne\x1b[0m");
  options.logging_steps_ratio = 0.25;
  options.learning_rate = 2e-5;
  options.shuffle = false;
  options.max_eval_samples = 100;
  options.num_train_epochs = 3;
  const std::string text = train_options_to_toml(options);
  EXPECT_NE(text.find("learning_rate = 2e-05\n"), std::string::npos) << text;
  EXPECT_NE(text.find("num_train_epochs = 3.0\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("max_train_samples"), std::string::npos) << text;  // unset optionals are left out

  const TempDir dir;
  write_file(dir / "resolved.toml", text);
  TrainOptions loaded;
  apply_config_file(dir / "resolved.toml", loaded);
  EXPECT_EQ(train_options_to_toml(loaded), text);
  EXPECT_EQ(loaded.model_name_or_path, options.model_name_or_path);
  EXPECT_EQ(loaded.output_dir, options.output_dir);
  EXPECT_EQ(loaded.logging_steps_ratio, 0.25);
  EXPECT_NE(text.find("logging_steps = 0.25\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace shmtrain::cli

namespace shmtrain::cli {
namespace {

// Every config the repository ships parses, and passes the cross-option rules.
TEST(TrainOptions, ShippedConfigsAreValid) {
  const std::filesystem::path configs = shmtrain::testing::source_dir() / "configs";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(configs)) {
    if (entry.path().extension() != ".toml") continue;
    TrainOptions options;
    EXPECT_EQ(error_of([&] {
                apply_config_file(entry.path(), options);
                validate_train_options(options);
              }),
              "(no InputError)")
        << entry.path();
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

}  // namespace
}  // namespace shmtrain::cli
