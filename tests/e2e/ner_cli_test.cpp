// run_ner through the built binary: a tiny RoBERTa (byte-level BPE, words with a prefix space)
// trains on tests/fixtures/ner_tiny's CoNLL files on 1 and 2 workers to the same losses,
// evaluates, and labels the test file; the test recomputes the metrics from predictions.txt
// and the file's own tags, and a run without training on the saved folder predicts the same.
#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reference_run.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/task/ner/seqeval.hpp"
#include "shmtrain/task/ner/tagged_file.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;

std::vector<task::TagSequence> lines_of_tags(const fs::path& file) {
  std::vector<task::TagSequence> out;
  std::istringstream in(read_file(file));
  for (std::string line; std::getline(in, line);) {
    task::TagSequence tags;
    std::istringstream words(line);
    for (std::string tag; words >> tag;) tags.push_back(tag);
    out.push_back(tags);
  }
  return out;
}

TEST(NerCli, TrainsOnOneAndTwoWorkersAlikeAndPredictionsScoreAsTheEvaluation) {
  const TempDir dir;
  const fs::path config = write_tiny_roberta_config(dir, true);
  const fs::path data = fixtures_dir() / "ner_tiny";
  std::vector<std::pair<long, double>> single;
  for (const int workers : {1, 2}) {
    const fs::path out = dir / fmt::format("out{}", workers);
    // The test file is also the validation file: its evaluation and its predictions must agree.
    const CliRun result = run_shmtrain(fmt::format(
        "train --do_train --task_name ner --config_name {} --tokenizer_name {} --train_file {} --validation_file {} --test_file {}"
        " --do_eval --do_predict --output_dir {} --max_seq_length 64 --per_device_train_batch_size {} --nproc_per_node {}"
        " --learning_rate 3e-3 --num_train_epochs 6 --logging_steps 1 --save_steps 0 --shuffle false",
        config.string(), (fixtures_dir() / "tokenizers/roberta_bpe").string(), (data / "train.txt").string(),
        (data / "test.txt").string(), (data / "test.txt").string(), out.string(), 8 / workers, workers));
    ASSERT_EQ(result.exit_code, 0) << result.output();
    EXPECT_NE(result.out.find("RobertaForTokenClassification"), std::string::npos) << result.out;
    const auto losses = metric_by_step(out / "metrics.jsonl", "loss");
    ASSERT_FALSE(losses.empty());
    if (workers == 1) {
      single = losses;
    } else {
      expect_same_losses(losses, single);
    }
    // Recomputed from the files alone: predictions.txt against test.txt's tags.
    const task::TaggedFile gold = task::read_tagged_file(data / "test.txt", {});
    const std::vector<task::TagSequence> predicted = lines_of_tags(out / "predictions.txt");
    ASSERT_EQ(predicted.size(), gold.sentences.size());
    std::vector<task::TagSequence> gold_tags;
    for (std::size_t i = 0; i < predicted.size(); ++i) {
      ASSERT_EQ(predicted[i].size(), gold.sentences[i].words.size()) << "sentence " << i + 1;
      gold_tags.push_back(gold.sentences[i].tags);
    }
    const task::SeqevalScores recomputed = task::seqeval_scores(gold_tags, predicted);
    const nlohmann::json eval = nlohmann::json::parse(read_file(out / "eval_results.json"));
    EXPECT_NEAR(eval.at("eval_f1").get<double>(), recomputed.overall.f1, 1e-12);
    EXPECT_NEAR(eval.at("eval_precision").get<double>(), recomputed.overall.precision, 1e-12);
    EXPECT_NEAR(eval.at("eval_accuracy").get<double>(), recomputed.accuracy, 1e-12);
    const model::BertConfig saved = model::read_hf_config(out / "config.json");
    EXPECT_EQ(saved.architectures, std::vector<std::string>{"RobertaForTokenClassification"});
    EXPECT_EQ(saved.id2label.size(), 9u);
  }
  // Prediction alone, from the trained folder.
  const CliRun again = run_shmtrain(fmt::format(
      "train --do_train --task_name ner --model_name_or_path {} --do_train false --do_eval false --do_predict --test_file {}"
      " --output_dir {} --max_seq_length 64",
      (dir / "out1").string(), (data / "test.txt").string(), (dir / "predict").string()));
  ASSERT_EQ(again.exit_code, 0) << again.output();
  EXPECT_EQ(read_file(dir / "predict" / "predictions.txt"), read_file(dir / "out1" / "predictions.txt"));
}

TEST(NerCli, BadTagsStopTheRunNamingTheFileAndLine) {
  const TempDir dir;
  const fs::path config = write_tiny_roberta_config(dir, true);
  write_file(dir / "train.txt", "Hello B-PER\nworld O\n");
  write_file(dir / "dev.txt", "Hello B-PER\n\nworld B-NEW\n");
  const CliRun result = run_shmtrain(fmt::format(
      "train --do_train --task_name ner --config_name {} --tokenizer_name {} --train_file {} --validation_file {} --output_dir {} --do_eval",
      config.string(), (fixtures_dir() / "tokenizers/roberta_bpe").string(), (dir / "train.txt").string(),
      (dir / "dev.txt").string(), (dir / "out").string()));
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("dev.txt:3: word 1 'world' has the tag 'B-NEW'"), std::string::npos) << result.err;
  EXPECT_FALSE(fs::exists(dir / "out" / "model.safetensors"));
}

// Trainer's strategies, best model and EarlyStoppingCallback: evaluations and checkpoints at
// each epoch's end, training stops after 2 evaluations without a better F1, the best
// checkpoint survives rotation and its weights are the model the final evaluation scores.
TEST(NerCli, EarlyStoppingEndsWithTheBestCheckpointsModel) {
  const TempDir dir;
  const fs::path config = write_tiny_roberta_config(dir, true);
  const fs::path data = fixtures_dir() / "ner_tiny";
  const fs::path out = dir / "out";
  const CliRun result = run_shmtrain(fmt::format(
      "train --do_train --task_name ner --config_name {} --tokenizer_name {} --train_file {} --validation_file {} --output_dir {}"
      " --max_seq_length 64 --per_device_train_batch_size 8 --learning_rate 3e-3 --num_train_epochs 40"
      " --eval_strategy epoch --save_strategy epoch --logging_strategy epoch --load_best_model_at_end"
      " --metric_for_best_model f1 --early_stopping_patience 2 --save_total_limit 1",
      config.string(), (fixtures_dir() / "tokenizers/roberta_bpe").string(), (data / "train.txt").string(),
      (data / "dev.txt").string(), out.string()));
  ASSERT_EQ(result.exit_code, 0) << result.output();
  EXPECT_NE(result.out.find("early stopping at step"), std::string::npos) << result.out;
  const auto f1 = metric_by_step(out / "metrics.jsonl", "eval_f1");
  ASSERT_GE(f1.size(), 4u);
  double best = -1;
  long best_step = 0;
  for (std::size_t i = 0; i + 1 < f1.size(); ++i) {  // the last record is the final evaluation
    EXPECT_EQ(f1[i].first % 8, 0) << "evaluations come at epoch ends (8 steps)";
    if (f1[i].second > best) {
      best = f1[i].second;
      best_step = f1[i].first;
    }
  }
  EXPECT_LT(f1[f1.size() - 2].first, 320) << "stopped early";
  EXPECT_DOUBLE_EQ(f1.back().second, best) << "the final evaluation scores the best checkpoint's weights";
  EXPECT_TRUE(fs::is_directory(out / fmt::format("checkpoint-{}", best_step))) << "kept through rotation";
  const nlohmann::json state = nlohmann::json::parse(read_file(out / "trainer_state.json"));
  EXPECT_DOUBLE_EQ(state.at("best_metric").get<double>(), best);
  EXPECT_EQ(fs::path(state.at("best_model_checkpoint").get<std::string>()).filename(), fmt::format("checkpoint-{}", best_step));
}

}  // namespace
}  // namespace shmtrain::testing
