// Bad input to `shmtrain train`: one clear line naming the file, flag or key, exit code 1,
// and nothing half-written in output_dir.
#include <algorithm>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "reference_run.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;

struct Failure {
  int exit_code;
  std::string message;  // stderr
};

class TrainErrors : public ::testing::Test {
 protected:
  void SetUp() override { run_ = write_reference_run(dir_); }

  std::string base_flags() const {
    return "train --do_train --model_name_or_path " + run_.model.string() + " --train_file " + run_.train_file.string() +
           " --validation_file " + run_.train_file.string() + " --output_dir " + (dir_ / "out").string() +
           " --max_seq_length 32 --max_steps 2";
  }

  // Runs and expects exit 1 with one "shmtrain: error:" line, and no output folder left with
  // anything in it.
  std::string error_of_run(const std::string& arguments) {
    const CliRun result = run_shmtrain(arguments);
    EXPECT_EQ(result.exit_code, 1) << result.output();
    EXPECT_EQ(result.err.rfind("shmtrain: error: ", 0), 0u) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    if (fs::exists(dir_ / "out")) {
      EXPECT_EQ(folder_entries(dir_ / "out"), std::vector<std::string>{});
    }
    return result.err;
  }

  TempDir dir_;
  ReferenceRun run_;
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(TrainErrors, MissingModelFolder) {
  const std::string err =
      error_of_run("train --do_train --model_name_or_path " + (dir_ / "nope").string() +
                   " --train_file x.jsonl --validation_file x.jsonl --output_dir " + (dir_ / "out").string());
  EXPECT_TRUE(contains(err, "nope: no such folder")) << err;
}

TEST_F(TrainErrors, VocabularyWithoutSpecialTokens) {
  write_file(run_.model / "vocab.txt", "a\nb\nc\n");
  const std::string err = error_of_run(base_flags());
  EXPECT_TRUE(contains(err, "vocab.txt")) << err;
  EXPECT_TRUE(contains(err, "[CLS]")) << err;
}

TEST_F(TrainErrors, EmptyDataset) {
  write_file(dir_ / "empty.jsonl", "");
  const std::string err = error_of_run(base_flags() + " --train_file " + (dir_ / "empty.jsonl").string());
  EXPECT_TRUE(contains(err, "empty.jsonl")) << err;
}

TEST_F(TrainErrors, LabelNotInTheLabelSet) {
  write_file(dir_ / "dev.jsonl", "{\"input_ids\": [101, 5, 102], \"label\": 7}\n");
  const std::string err = error_of_run(base_flags() + " --do_eval --validation_file " + (dir_ / "dev.jsonl").string());
  EXPECT_TRUE(contains(err, "dev.jsonl:1")) << err;
}

TEST_F(TrainErrors, TokenIdOutsideTheVocabulary) {
  write_file(
      dir_ / "train.jsonl",
      "{\"input_ids\": [101, 5000, 102], \"label\": 0}\n{\"input_ids\": [101, 5, 102], \"label\": 1}\n");
  const std::string err =
      error_of_run(base_flags() + " --train_file " + (dir_ / "train.jsonl").string() + " --do_eval false");
  EXPECT_TRUE(contains(err, "train.jsonl")) << err;
  EXPECT_TRUE(contains(err, "5000")) << err;
}

// run_glue's rule: lowered to what the model takes, with a warning, not an error.
TEST_F(TrainErrors, MaxSeqLengthAboveThePositionTableIsLowered) {
  const CliRun result = run_shmtrain(base_flags() + " --max_seq_length 65");
  EXPECT_EQ(result.exit_code, 0) << result.output();
  EXPECT_TRUE(contains(result.out, "warning: max_seq_length 65 is larger than the 64 positions the model takes")) << result.out;
  EXPECT_TRUE(contains(result.out, "using max_seq_length 64")) << result.out;
}

// A RoBERTa tokenizer (<pad> = 1) on a BERT config (pad_token_id 0): every position would move.
TEST_F(TrainErrors, TokenizerAndConfigDisagreeOnPadding) {
  const std::string roberta = (fixtures_dir() / "tokenizers" / "roberta_bpe").string();
  const std::string err = error_of_run(base_flags() + " --tokenizer_name " + roberta);
  EXPECT_TRUE(contains(err, "the tokenizer pads with id 1 but")) << err;
  EXPECT_TRUE(contains(err, "says pad_token_id 0; they must agree")) << err;
}

TEST_F(TrainErrors, UnknownConfigKeyAndBadFlagValue) {
  write_file(dir_ / "run.toml", "seed = 1\nlerning_rate = 0.1\n");
  std::string err = error_of_run(base_flags() + " --config " + (dir_ / "run.toml").string());
  EXPECT_TRUE(contains(err, "run.toml:2: unknown key 'lerning_rate'")) << err;
  err = error_of_run(base_flags() + " --learning_rate fast");
  EXPECT_TRUE(contains(err, "--learning_rate: 'fast' is not a number")) << err;
  err = error_of_run(base_flags() + " --warmup_ratio 2");
  EXPECT_TRUE(contains(err, "--warmup_ratio: warmup_ratio must be <= 1, got 2")) << err;
  err = error_of_run(base_flags() + " --lr_scheduler_type warmup_stable_decay");
  EXPECT_TRUE(contains(err, "'warmup_stable_decay' is one of Trainer's schedules that shmtrain does not implement"))
      << err;
  err = error_of_run(base_flags() + " --lr_scheduler_type cosine --lr_scheduler_kwargs '{\"num_cycle\": 2}'");
  EXPECT_TRUE(contains(err, "lr_scheduler_type cosine does not take 'num_cycle' (it takes num_cycles)")) << err;
}

TEST_F(TrainErrors, UnknownFlagIsRefusedByTheParser) {
  const CliRun result = run_shmtrain(base_flags() + " --learnig_rate 1e-3");
  EXPECT_NE(result.exit_code, 0);
  EXPECT_TRUE(contains(result.output(), "learnig_rate")) << result.output();
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(TrainErrors, ResumeFromAFolderThatIsNotACheckpoint) {
  fs::create_directories(dir_ / "not-a-checkpoint");
  const std::string err =
      error_of_run(base_flags() + " --resume_from_checkpoint " + (dir_ / "not-a-checkpoint").string());
  EXPECT_TRUE(contains(err, "not-a-checkpoint: model.safetensors not found")) << err;
}

TEST_F(TrainErrors, ResumeIntoAnotherModelIsRefusedNamingWhatDiffers) {
  // A checkpoint of the 2-layer fixture, then the model folder cut to 1 layer (its second
  // layer's weights left unused, as a user's smaller config would): resuming the 2-layer
  // checkpoint into it was accepted, loading half the checkpoint (issue #21).
  std::string flags = base_flags();
  const std::string out = (dir_ / "out").string();
  flags.replace(flags.find(out), out.size(), (dir_ / "first").string());
  const CliRun first = run_shmtrain(flags + " --save_steps 1");
  ASSERT_EQ(first.exit_code, 0) << first.output();
  std::string config = read_file(run_.model / "config.json");
  const std::string layers = "\"num_hidden_layers\": 2";
  ASSERT_NE(config.find(layers), std::string::npos);
  config.replace(config.find(layers), layers.size(), "\"num_hidden_layers\": 1");
  write_file(run_.model / "config.json", config);
  const std::string err =
      error_of_run(base_flags() + " --resume_from_checkpoint " + (dir_ / "first" / "checkpoint-1").string());
  EXPECT_TRUE(contains(err,
                       "checkpoint-1/config.json: the checkpoint's num_hidden_layers is 2 but this run's "
                       "model has 1: resume a checkpoint of the same model"))
      << err;
}

}  // namespace
}  // namespace shmtrain::testing
