// The predict step's metrics, as each script writes them, through the built binary: run_ner and
// run_qa score a labelled test file into predict_results.json and merge it into
// all_results.json (Trainer.save_metrics); run_glue drops the labels and scores nothing; an
// unlabelled test file is predicted and never scored. The test file is the validation file, so
// the predict metrics must equal the evaluation's.
#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reference_run.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;
using PredictJson = nlohmann::json;

std::set<std::string> keys_of(const PredictJson& object) {
  std::set<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.insert(key);
  return keys;
}

// all_results.json holds every key of predict_results.json with its value, and the evaluation's.
void expect_merged(const fs::path& out) {
  const PredictJson predict = PredictJson::parse(read_file(out / "predict_results.json"));
  const PredictJson all = PredictJson::parse(read_file(out / "all_results.json"));
  for (const auto& [key, value] : predict.items()) EXPECT_EQ(all.value(key, PredictJson()), value) << key;
  for (const char* key : {"eval_f1", "train_loss"}) EXPECT_TRUE(all.contains(key)) << key;
}

void expect_no_predict_metrics(const fs::path& out) {
  EXPECT_FALSE(fs::exists(out / "predict_results.json"));
  const PredictJson all = PredictJson::parse(read_file(out / "all_results.json"));
  for (const auto& [key, value] : all.items()) {
    EXPECT_FALSE(key.starts_with("predict_") || key.starts_with("test_")) << key;
  }
}

// A CoNLL file's words alone: a test file without tags.
std::string words_only(const std::string& conll) {
  std::istringstream in(conll);
  std::string out;
  for (std::string line; std::getline(in, line);) out += line.substr(0, line.find(' ')) + "\n";
  return out;
}

TEST(PredictResults, RunNerScoresALabelledTestFileAndNotAnUnlabelledOne) {
  const TempDir dir;
  const fs::path config = write_tiny_roberta_config(dir);
  const fs::path data = fixtures_dir() / "ner_tiny";
  const fs::path out = dir / "out";
  const CliRun trained = run_shmtrain(fmt::format(
      "train --do_train --task_name ner --config_name {} --tokenizer_name {} --train_file {} --validation_file {}"
      " --test_file {} --do_eval --do_predict --output_dir {} --max_seq_length 64 --per_device_train_batch_size 8"
      " --learning_rate 3e-3 --max_steps 4 --save_steps 0",
      config.string(), (fixtures_dir() / "tokenizers/roberta_bpe").string(), (data / "train.txt").string(),
      (data / "test.txt").string(), (data / "test.txt").string(), out.string()));
  ASSERT_EQ(trained.exit_code, 0) << trained.output();
  const PredictJson predict = PredictJson::parse(read_file(out / "predict_results.json"));
  // run_ner's trainer.predict(metric_key_prefix="predict"): seqeval's four, the loss and the speed.
  EXPECT_EQ(keys_of(predict),
            (std::set<std::string>{"predict_accuracy", "predict_f1", "predict_loss", "predict_precision",
                                   "predict_recall", "predict_runtime", "predict_samples_per_second",
                                   "predict_steps_per_second"}));
  const PredictJson eval = PredictJson::parse(read_file(out / "eval_results.json"));
  for (const char* metric : {"accuracy", "f1", "precision", "recall"}) {
    EXPECT_EQ(predict.at(fmt::format("predict_{}", metric)), eval.at(fmt::format("eval_{}", metric))) << metric;
  }
  EXPECT_GT(predict.at("predict_loss").get<double>(), 0.0);
  expect_merged(out);

  const fs::path untagged = dir / "untagged.txt";
  write_file(untagged, words_only(read_file(data / "test.txt")));
  const fs::path alone = dir / "alone";
  const CliRun predicted = run_shmtrain(fmt::format(
      "train --task_name ner --model_name_or_path {} --do_train false --do_eval false --do_predict --test_file {} --output_dir {}"
      " --max_seq_length 64",
      out.string(), untagged.string(), alone.string()));
  ASSERT_EQ(predicted.exit_code, 0) << predicted.output();
  EXPECT_EQ(read_file(alone / "predictions.txt"), read_file(out / "predictions.txt"));
  expect_no_predict_metrics(alone);
}

TEST(PredictResults, RunQaScoresALabelledTestFileUnderItsTestPrefix) {
  const TempDir dir;
  const fs::path squad = fixtures_dir() / "squad_tiny";
  const fs::path out = dir / "out";
  const CliRun trained = run_shmtrain(fmt::format(
      "train --do_train --task_name squad --config_name {} --tokenizer_name {} --train_file {} --validation_file {}"
      " --test_file {} --do_eval --do_predict --output_dir {} --max_seq_length 48 --doc_stride 16 --max_steps 3"
      " --save_steps 0 --per_device_eval_batch_size 4",
      (squad / "bert_config.json").string(), (squad / "vocab.txt").string(), (squad / "train.json").string(),
      (squad / "dev.json").string(), (squad / "dev.json").string(), out.string()));
  ASSERT_EQ(trained.exit_code, 0) << trained.output();
  const PredictJson predict = PredictJson::parse(read_file(out / "predict_results.json"));
  // QuestionAnsweringTrainer.predict's default prefix "test", and run_qa's predict_samples (windows).
  EXPECT_EQ(keys_of(predict), (std::set<std::string>{"predict_samples", "test_exact_match", "test_f1", "test_runtime",
                                                     "test_samples_per_second", "test_steps_per_second"}));
  EXPECT_EQ(predict.at("predict_samples").get<int>(), 53);
  const PredictJson eval = PredictJson::parse(read_file(out / "eval_results.json"));
  EXPECT_EQ(predict.at("test_exact_match"), eval.at("eval_exact_match"));
  EXPECT_EQ(predict.at("test_f1"), eval.at("eval_f1"));
  expect_merged(out);

  PredictJson unanswered = PredictJson::parse(read_file(squad / "dev.json"));
  for (auto& paragraph : unanswered.at("data")[0].at("paragraphs")) {
    for (auto& qa : paragraph.at("qas")) qa["answers"] = PredictJson::array();
  }
  write_file(dir / "questions.json", unanswered.dump());
  const fs::path alone = dir / "alone";
  const CliRun predicted = run_shmtrain(fmt::format(
      "train --task_name squad --model_name_or_path {} --do_train false --do_eval false --do_predict --test_file {} --output_dir {}"
      " --max_seq_length 48 --doc_stride 16",
      out.string(), (dir / "questions.json").string(), alone.string()));
  ASSERT_EQ(predicted.exit_code, 0) << predicted.output();
  EXPECT_EQ(read_file(alone / "predict_predictions.json"), read_file(out / "predict_predictions.json"));
  expect_no_predict_metrics(alone);
}

// run_glue's predict step removes the label column and saves no metrics.
TEST(PredictResults, RunGlueScoresNoTestFileLabelledOrNot) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir);
  const fs::path out = dir / "out";
  const CliRun result = run_shmtrain(fmt::format(
      "train --do_train --model_name_or_path {} --train_file {} --validation_file {} --test_file {} --do_eval"
      " --do_predict --output_dir {} --max_seq_length 32 --max_steps 2 --save_steps 0",
      run.model.string(), run.train_file.string(), run.train_file.string(), run.train_file.string(),
      out.string()));
  ASSERT_EQ(result.exit_code, 0) << result.output();
  EXPECT_TRUE(fs::exists(out / "predict_results_None.txt"));
  expect_no_predict_metrics(out);
}

}  // namespace
}  // namespace shmtrain::testing
