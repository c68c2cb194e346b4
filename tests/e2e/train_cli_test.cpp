// `shmtrain train` end to end, through the built binary, on the PyTorch reference fixture:
// losses against PyTorch's, exact resume, the output folder, and the output_dir rules.
#include <cmath>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reference_run.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;

// The reference's settings (reference_losses.json "settings"): batch 8 in file order, AdamW
// lr 1e-3, weight decay 0.01, constant schedule, clip 1.0, dropout 0 (config.json).
std::string reference_flags(const ReferenceRun& run, const fs::path& output_dir) {
  return "train --do_train --model_name_or_path " + run.model.string() + " --train_file " + run.train_file.string() +
         " --validation_file " + run.train_file.string() + " --output_dir " + output_dir.string() +
         " --max_seq_length 32 --per_device_train_batch_size 8 --learning_rate 1e-3 --weight_decay 0.01"
         " --lr_scheduler_type constant --shuffle false --logging_steps 1 --num_train_epochs 1 --save_steps 0";
}

TEST(TrainCli, LossesMatchPyTorchOnTheReferenceFixture) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const CliRun result = run_shmtrain(reference_flags(run, dir / "out"));
  ASSERT_EQ(result.exit_code, 0) << result.output();

  const auto losses = metric_by_step(dir / "out" / "metrics.jsonl", "loss");
  ASSERT_EQ(losses.size(), run.losses.size());
  for (std::size_t i = 0; i < losses.size(); ++i) {
    EXPECT_EQ(losses[i].first, static_cast<long>(i + 1));
    // 1e-4 relative: the bound; fp32 summation order differs from PyTorch's.
    EXPECT_NEAR(losses[i].second, run.losses[i], 1e-4 * std::abs(run.losses[i])) << "step " << i + 1;
  }
}

TEST(TrainCli, WritesAFolderThatHuggingFaceLoads) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const fs::path out = dir / "out";
  const CliRun result = run_shmtrain(reference_flags(run, out) + " --max_steps 3 --eval_steps 2 --do_eval");
  ASSERT_EQ(result.exit_code, 0) << result.output();
  for (const char* name : {"model.safetensors", "config.json", "vocab.txt", "tokenizer_config.json",
                           "special_tokens_map.json", "eval_results.json", "train_results.json", "trainer_state.json",
                           "all_results.json", "metrics.jsonl", "shmtrain_config.toml"}) {
    EXPECT_TRUE(fs::is_regular_file(out / name)) << name;
  }
  const model::BertConfig config = model::read_hf_config(out / "config.json");
  EXPECT_EQ(config.id2label, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(config.problem_type, "single_label_classification");
  const io::SafetensorsReader weights(out / "model.safetensors");
  EXPECT_TRUE(weights.contains("bert.embeddings.word_embeddings.weight"));
  EXPECT_TRUE(weights.contains("classifier.weight"));
  EXPECT_EQ(read_file(out / "vocab.txt"), read_file(run.model / "vocab.txt"));

  const nlohmann::json eval = nlohmann::json::parse(read_file(out / "eval_results.json"));
  for (const char* key : {"eval_loss", "eval_accuracy", "eval_f1", "eval_samples"}) EXPECT_TRUE(eval.contains(key)) << key;
  EXPECT_EQ(eval.at("eval_samples").get<int>(), 160);
  const nlohmann::json state = nlohmann::json::parse(read_file(out / "trainer_state.json"));
  EXPECT_EQ(state.at("global_step").get<int>(), 3);
  // 3 steps, the evaluation at step 2 and the final one.
  ASSERT_EQ(state.at("log_history").size(), 5u);
  EXPECT_EQ(state.at("log_history")[2].at("step").get<int>(), 2);
  EXPECT_TRUE(state.at("log_history")[2].contains("eval_accuracy"));
  EXPECT_EQ(metric_by_step(out / "metrics.jsonl", "eval_loss").size(), 2u);
}

// A run stopped after its checkpoint at step N and resumed gives the same losses as one that
// never stopped: dropout on, shuffling on, a warm-up schedule, gradient accumulation, and
// the resume falls mid-epoch (10 micro-batches of 16 per epoch, 2 per step).
TEST(TrainCli, ResumeFromACheckpointGivesTheSameLossesAsAStraightRun) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const std::string flags = " --max_seq_length 32 --per_device_train_batch_size 16 --gradient_accumulation_steps 2"
                            " --learning_rate 1e-3 --warmup_ratio 0.2 --hidden_dropout_prob 0.1"
                            " --attention_probs_dropout_prob 0.1 --logging_steps 1 --max_steps 8 --save_steps 3"
                            " --do_eval false --model_name_or_path " +
                            run.model.string() + " --train_file " + run.train_file.string();
  const CliRun straight = run_shmtrain("train --do_train --output_dir " + (dir / "straight").string() + flags);
  ASSERT_EQ(straight.exit_code, 0) << straight.output();
  ASSERT_TRUE(fs::is_directory(dir / "straight" / "checkpoint-3"));

  // Explicit resume_from_checkpoint into a fresh folder.
  const CliRun resumed = run_shmtrain("train --do_train --output_dir " + (dir / "resumed").string() +
                                      " --resume_from_checkpoint " + (dir / "straight" / "checkpoint-3").string() +
                                      flags);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output();
  EXPECT_NE(resumed.out.find("resumed from"), std::string::npos) << resumed.out;

  // An interrupted run: output_dir holds checkpoint-6 and the metrics logged so far.
  fs::create_directories(dir / "interrupted");
  fs::copy(dir / "straight" / "checkpoint-6", dir / "interrupted" / "checkpoint-6", fs::copy_options::recursive);
  fs::copy_file(dir / "straight" / "metrics.jsonl", dir / "interrupted" / "metrics.jsonl");
  const CliRun continued = run_shmtrain("train --do_train --output_dir " + (dir / "interrupted").string() + flags);
  ASSERT_EQ(continued.exit_code, 0) << continued.output();
  EXPECT_NE(continued.out.find("holds an interrupted run: resuming from checkpoint-6"), std::string::npos);

  const auto expected = metric_by_step(dir / "straight" / "metrics.jsonl", "loss");
  ASSERT_EQ(expected.size(), 8u);
  const auto after_resume = metric_by_step(dir / "resumed" / "metrics.jsonl", "loss");
  ASSERT_EQ(after_resume.size(), 5u);
  for (std::size_t i = 0; i < after_resume.size(); ++i) {
    EXPECT_EQ(after_resume[i].first, expected[i + 3].first);
    EXPECT_NEAR(after_resume[i].second, expected[i + 3].second, 1e-6 * std::abs(expected[i + 3].second));
  }
  // The log of the interrupted run continues without repeating steps 7 and 8.
  const auto continued_log = metric_by_step(dir / "interrupted" / "metrics.jsonl", "loss");
  ASSERT_EQ(continued_log.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(continued_log[i].first, expected[i].first);
    EXPECT_NEAR(continued_log[i].second, expected[i].second, 1e-6 * std::abs(expected[i].second));
  }
  EXPECT_EQ(read_file(dir / "interrupted" / "model.safetensors"), read_file(dir / "straight" / "model.safetensors"));
}

TEST(TrainCli, SaveTotalLimitKeepsTheNewestCheckpoints) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const CliRun result =
      run_shmtrain(reference_flags(run, dir / "out") + " --max_steps 6 --save_steps 2 --save_total_limit 2");
  ASSERT_EQ(result.exit_code, 0) << result.output();
  EXPECT_FALSE(fs::exists(dir / "out" / "checkpoint-2"));
  EXPECT_TRUE(fs::is_regular_file(dir / "out" / "checkpoint-4" / "optimizer.safetensors"));
  EXPECT_TRUE(fs::is_regular_file(dir / "out" / "checkpoint-6" / "trainer_state.json"));
}

TEST(TrainCli, RefusesAnOutputDirHoldingAFinishedRunUnlessOverwriting) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const std::string flags = reference_flags(run, dir / "out") + " --max_steps 2";
  ASSERT_EQ(run_shmtrain(flags).exit_code, 0);
  const std::string before = read_file(dir / "out" / "model.safetensors");

  const CliRun again = run_shmtrain(flags);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("already holds a finished run; pass --overwrite_output_dir"), std::string::npos)
      << again.err;
  EXPECT_EQ(read_file(dir / "out" / "model.safetensors"), before);

  const CliRun overwritten = run_shmtrain(flags + " --overwrite_output_dir --max_steps 3");
  EXPECT_EQ(overwritten.exit_code, 0) << overwritten.output();
  EXPECT_EQ(metric_by_step(dir / "out" / "metrics.jsonl", "loss").size(), 3u);
}

TEST(TrainCli, DryRunPrintsThePlanAndWritesNothing) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const CliRun result = run_shmtrain(reference_flags(run, dir / "out") + " --dry_run");
  ASSERT_EQ(result.exit_code, 0) << result.output();
  EXPECT_NE(result.out.find("20 steps/epoch, 20 steps"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("learning_rate = 0.001"), std::string::npos) << result.out;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

// --do_predict on custom files (run_glue's predict step): a test file without labels gets
// predict_results_None.txt ("index\tprediction" with label names), also from the trained
// folder alone, and the two runs' predictions agree.
TEST(TrainCli, DoPredictWritesRunGluesPredictResults) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  write_file(dir / "test.jsonl", "{\"input_ids\": [101, 7, 8, 102]}\n{\"input_ids\": [101, 9, 102]}\n");
  const fs::path out = dir / "out";
  const CliRun trained = run_shmtrain(reference_flags(run, out) + " --max_steps 2 --do_predict --test_file " +
                                      (dir / "test.jsonl").string());
  ASSERT_EQ(trained.exit_code, 0) << trained.output();
  const std::string predictions = read_file(out / "predict_results_None.txt");
  ASSERT_EQ(predictions.rfind("index\tprediction\n0\t", 0), 0u) << predictions;
  EXPECT_EQ(std::count(predictions.begin(), predictions.end(), '\n'), 3);
  EXPECT_TRUE(predictions.find("\n1\t0\n") != std::string::npos || predictions.find("\n1\t1\n") != std::string::npos)
      << predictions;
  const CliRun alone = run_shmtrain("train --do_train --model_name_or_path " + out.string() + " --train_file " +
                                    run.train_file.string() + " --do_train false --do_predict --test_file " +
                                    (dir / "test.jsonl").string() + " --output_dir " + (dir / "alone").string());
  ASSERT_EQ(alone.exit_code, 0) << alone.output();
  EXPECT_EQ(read_file(dir / "alone" / "predict_results_None.txt"), predictions);

  // Predicting the labelled training file: accuracy recomputed from predict_results_None.txt
  // and the file's labels equals the evaluation's on the same file.
  const CliRun both = run_shmtrain("train --model_name_or_path " + out.string() + " --train_file " +
                                   run.train_file.string() + " --validation_file " + run.train_file.string() +
                                   " --do_eval --do_predict --test_file " + run.train_file.string() + " --output_dir " +
                                   (dir / "both").string());
  ASSERT_EQ(both.exit_code, 0) << both.output();
  std::istringstream rows(read_file(run.train_file));
  std::istringstream predicted(read_file(dir / "both" / "predict_results_None.txt"));
  std::string line, header;
  std::getline(predicted, header);
  int total = 0, right = 0;
  while (std::getline(rows, line) && !line.empty()) {
    std::string prediction;
    ASSERT_TRUE(std::getline(predicted, prediction));
    const std::string label = std::to_string(nlohmann::json::parse(line).at("label").get<int>());
    right += prediction.substr(prediction.find('\t') + 1) == label;
    ++total;
  }
  const nlohmann::json eval = nlohmann::json::parse(read_file(dir / "both" / "eval_results.json"));
  EXPECT_DOUBLE_EQ(eval.at("eval_accuracy").get<double>(), static_cast<double>(right) / total);
}

}  // namespace
}  // namespace shmtrain::testing
