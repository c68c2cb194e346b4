// The commands users paste, verbatim but for the program name: the multi-CPU guide's run_qa
// command and run_glue's README command, against a Hugging Face cache this test builds as
// huggingface_hub lays it out (tiny models under the ids the commands name, small parquet
// splits of tests/fixtures/hub/). They train offline, and the metrics they report equal what
// the test recomputes from their prediction files.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/task/squad/squad_metric.hpp"
#include "shmtrain/tensor/cpu_features.hpp"
#include "e2e/hub_cache_fixture.hpp"
#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using shmtrain::testing::CliRun;
using shmtrain::testing::fixtures_dir;
using shmtrain::testing::read_file;
using shmtrain::testing::run_command;
using shmtrain::testing::run_shmtrain;
using shmtrain::testing::shmtrain_binary;
using shmtrain::testing::source_dir;
using shmtrain::testing::TempDir;
using shmtrain::testing::write_file;
using namespace shmtrain::testing::hub_cache;  // NOLINT: the cache builders

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, '\t');) fields.push_back(field);
  return fields;
}

TEST(HubCommands, RunGluesReadmeCommandRunsVerbatim) {
  const TempDir dir;
  const fs::path cache = dir / "hub";
  const fs::path model =
      tiny_model(dir, "base", "--config_name demo/paraphrase/config.json --tokenizer_name demo/paraphrase "
                              "--task_name mrpc --data_dir demo/paraphrase --max_seq_length 64");
  put_in_cache(cache, "models--google-bert--bert-base-cased", folder_files(model));
  const fs::path glue = fixtures_dir() / "hub" / "glue" / "mrpc";
  put_in_cache(cache, "datasets--nyu-mll--glue",
               {{"mrpc/train-00000-of-00001.parquet", glue / "train-00000-of-00001.parquet"},
                {"mrpc/validation-00000-of-00001.parquet", glue / "validation-00000-of-00001.parquet"},
                {"mrpc/test-00000-of-00001.parquet", glue / "test-00000-of-00001.parquet"}});

  const fs::path out = dir / "mrpc";
  const CliRun run = with_cache(
      cache, "train --model_name_or_path google-bert/bert-base-cased --task_name mrpc --do_train --do_eval "
             "--max_seq_length 128 --per_device_train_batch_size 32 --learning_rate 2e-5 --num_train_epochs 3 "
             "--output_dir " + out.string() + "/");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  EXPECT_NE(run.out.find("data: mrpc | train 320 examples | eval 64 examples | 2 labels (not_equivalent, equivalent)"),
            std::string::npos)
      << run.out;
  const nlohmann::json eval = read_json(out / "eval_results.json");
  ASSERT_TRUE(eval.contains("eval_accuracy")) << eval.dump();
  EXPECT_EQ(read_file(out / "eval_results.json"), eval.dump(4) + "\n") << "indent 4, sorted keys";
  const nlohmann::json config = read_json(out / "config.json");
  EXPECT_EQ(config["id2label"]["1"], "equivalent");

  // The trained model labels the test split (the validation pairs, label -1 as GLUE's): its
  // predictions scored against the validation labels give the reported accuracy.
  const fs::path predicted = dir / "predict";
  const CliRun predict = with_cache(cache, "train --model_name_or_path " + out.string() +
                                               " --task_name mrpc --do_predict --output_dir " + predicted.string());
  ASSERT_EQ(predict.exit_code, 0) << predict.output();
  std::ifstream gold_file(source_dir() / "demo" / "paraphrase" / "dev.tsv");
  std::ifstream predictions(predicted / "predict_results_mrpc.txt");
  std::string gold_line;
  std::string line;
  std::getline(gold_file, gold_line);
  std::getline(predictions, line);
  ASSERT_EQ(line, "index\tprediction");
  int correct = 0;
  int total = 0;
  while (std::getline(predictions, line)) {
    ASSERT_TRUE(std::getline(gold_file, gold_line));
    const std::string gold = split_tabs(gold_line)[0] == "1" ? "equivalent" : "not_equivalent";
    correct += split_tabs(line).at(1) == gold ? 1 : 0;
    ++total;
  }
  ASSERT_EQ(total, 64);
  EXPECT_DOUBLE_EQ(eval["eval_accuracy"].get<double>(), static_cast<double>(correct) / total);
}

TEST(HubCommands, TheGuidesRunQaCommandRunsVerbatim) {
  const TempDir dir;
  const fs::path cache = dir / "hub";
  // A tiny QA BERT with room for the command's 384-token windows.
  nlohmann::json config = read_json(fixtures_dir() / "squad_tiny" / "bert_config.json");
  config["max_position_embeddings"] = 512;
  write_file(dir / "qa_config.json", config.dump(2));
  const fs::path squad = fixtures_dir() / "squad_tiny";
  const fs::path model = tiny_model(
      dir, "large", fmt::format("--config_name {} --tokenizer_name {} --task_name squad --train_file {} "
                                "--max_seq_length 48 --doc_stride 16",
                                (dir / "qa_config.json").string(), squad.string(), (squad / "train.json").string()));
  put_in_cache(cache, "models--google-bert--bert-large-uncased", folder_files(model));
  const fs::path hub = fixtures_dir() / "hub" / "squad" / "plain_text";
  put_in_cache(cache, "datasets--rajpurkar--squad",
               {{"plain_text/train-00000-of-00001.parquet", hub / "train-00000-of-00001.parquet"},
                {"plain_text/validation-00000-of-00001.parquet", hub / "validation-00000-of-00001.parquet"}});

  // The guide's command asks for bf16, which needs AVX512-BF16 or AMX.
  const bool bf16 = shmtrain::tensor::cpu_features().bf16_native();
  const fs::path out = dir / "debug_squad";
  const CliRun run = with_cache(
      cache, "train --model_name_or_path google-bert/bert-large-uncased --dataset_name squad --do_train --do_eval "
             "--per_device_train_batch_size 12 --learning_rate 3e-5 --num_train_epochs 2 --max_seq_length 384 "
             "--doc_stride 128 --output_dir " + out.string() + "/ --no_cuda --ddp_backend ccl --use_ipex" +
             (bf16 ? " --bf16" : ""));
  ASSERT_EQ(run.exit_code, 0) << run.output();
  for (const char* note : {"--no_cuda has no effect", "--ddp_backend ccl has no effect", "--use_ipex has no effect"}) {
    EXPECT_NE(run.err.find(note), std::string::npos) << note << "\n" << run.err;
  }
  EXPECT_NE(run.out.find("data: squad | train "), std::string::npos) << run.out;

  // EM and F1 from eval_predictions.json against the dev questions' answers.
  const nlohmann::json predictions = read_json(out / "eval_predictions.json");
  const nlohmann::json dev = read_json(squad / "dev.json");
  std::vector<std::string> predicted;
  std::vector<std::vector<std::string>> golds;
  for (const auto& article : dev["data"]) {
    for (const auto& paragraph : article["paragraphs"]) {
      for (const auto& qa : paragraph["qas"]) {
        ASSERT_TRUE(predictions.contains(qa["id"].get<std::string>())) << qa["id"];
        predicted.push_back(predictions[qa["id"].get<std::string>()].get<std::string>());
        std::vector<std::string>& answers = golds.emplace_back();
        for (const auto& answer : qa["answers"]) answers.push_back(answer["text"].get<std::string>());
      }
    }
  }
  ASSERT_EQ(predicted.size(), 40u);
  const shmtrain::task::SquadScores scores = shmtrain::task::squad_scores(predicted, golds);
  const nlohmann::json eval = read_json(out / "eval_results.json");
  EXPECT_NEAR(eval["eval_exact_match"].get<double>(), scores.exact_match, 1e-9) << eval.dump();
  EXPECT_NEAR(eval["eval_f1"].get<double>(), scores.f1, 1e-9) << eval.dump();
  EXPECT_TRUE(fs::exists(out / "eval_nbest_predictions.json"));
}

TEST(HubCommands, RunNersReadmeCommandReadsConll2003FromItsParquetExport) {
  const TempDir dir;
  const fs::path cache = dir / "hub";
  const fs::path ner = fixtures_dir() / "ner_tiny";
  const fs::path model =
      tiny_model(dir, "base", "--config_name demo/paraphrase/config.json --tokenizer_name demo/paraphrase "
                              "--task_name ner --train_file " + (ner / "train.txt").string());
  put_in_cache(cache, "models--google-bert--bert-base-uncased", folder_files(model));
  // Its main branch holds only a loading script; the parquet files are on refs/convert/parquet.
  write_file(dir / "conll2003.py", "# a datasets loading script\n");
  put_in_cache(cache, "datasets--eriktks--conll2003", {{"conll2003.py", dir / "conll2003.py"}});
  const fs::path hub = fixtures_dir() / "hub" / "conll2003" / "conll2003";
  std::map<std::string, fs::path> splits;
  for (const char* split : {"train", "validation", "test"}) {
    splits[fmt::format("conll2003/{}/0000.parquet", split)] = hub / split / "0000.parquet";
  }
  // huggingface_hub names the ref file by the revision asked for: refs/<"refs/convert/parquet">.
  put_in_cache(cache, "datasets--eriktks--conll2003", splits, "refs/convert/parquet",
               "fedcba9876543210fedcba9876543210fedcba98");

  const fs::path out = dir / "test-ner";
  const CliRun run = with_cache(cache, "train --model_name_or_path google-bert/bert-base-uncased --dataset_name "
                                       "conll2003 --output_dir " + out.string() + " --do_train --do_eval");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  EXPECT_NE(run.out.find("data: ner | train 60 "), std::string::npos) << run.out;
  const nlohmann::json config = read_json(out / "config.json");
  EXPECT_EQ(config["id2label"]["1"], "B-PER") << "CoNLL-2003's ClassLabel order, not sorted tags";
  EXPECT_EQ(config["id2label"]["3"], "B-ORG");
  const nlohmann::json eval = read_json(out / "eval_results.json");
  EXPECT_TRUE(eval.contains("eval_f1")) << eval.dump();
}

TEST(HubCommands, WhatTheCacheLacksIsOneClearErrorWithNoOutput) {
  const TempDir dir;
  const fs::path cache = dir / "hub";
  fs::create_directories(cache);
  const fs::path out = dir / "out";
  const CliRun model = with_cache(cache, "train --model_name_or_path bert-base-uncased --task_name mrpc --do_train "
                                         "--output_dir " + out.string());
  EXPECT_EQ(model.exit_code, 1);
  EXPECT_NE(model.err.find("huggingface-cli download"), std::string::npos) << model.err;
  EXPECT_NE(model.err.find("models--bert-base-uncased"), std::string::npos) << model.err;
  EXPECT_FALSE(fs::exists(out));

  // A snapshot whose weights link to a blob the download never finished.
  const fs::path model_dir =
      tiny_model(dir, "m", "--config_name demo/paraphrase/config.json --tokenizer_name demo/paraphrase "
                           "--task_name mrpc --data_dir demo/paraphrase --max_seq_length 64");
  put_in_cache(cache, "models--google-bert--bert-base-cased", folder_files(model_dir));
  fs::remove(fs::canonical(cache / "models--google-bert--bert-base-cased" / "snapshots" / kCommit / "model.safetensors"));
  const CliRun broken = with_cache(cache, "train --model_name_or_path google-bert/bert-base-cased --task_name mrpc "
                                          "--do_train --output_dir " + out.string());
  EXPECT_EQ(broken.exit_code, 1);
  EXPECT_NE(broken.err.find("model.safetensors"), std::string::npos) << broken.err;
  EXPECT_NE(broken.err.find("broken"), std::string::npos) << broken.err;
  EXPECT_FALSE(fs::exists(out));

  // The model is there now, the dataset is not.
  fs::remove(cache / "models--google-bert--bert-base-cased" / "snapshots" / kCommit / "model.safetensors");
  fs::create_symlink(fs::canonical(model_dir / "model.safetensors"),
                     cache / "models--google-bert--bert-base-cased" / "snapshots" / kCommit / "model.safetensors");
  const CliRun data = with_cache(cache, "train --model_name_or_path google-bert/bert-base-cased --task_name mrpc "
                                        "--do_train --output_dir " + out.string());
  EXPECT_EQ(data.exit_code, 1);
  EXPECT_NE(data.err.find("--repo-type dataset"), std::string::npos) << data.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(HubCommands, AParquetFileWithoutTheColumnATaskNeedsIsNamed) {
  const TempDir dir;
  const fs::path glue = fixtures_dir() / "hub" / "glue" / "mrpc";
  const CliRun run = run_shmtrain(
      "train --do_train --config_name demo/paraphrase/config.json --tokenizer_name demo/paraphrase --task_name "
      "squad --train_file " + (glue / "train-00000-of-00001.parquet").string() + " --output_dir " +
          (dir / "out").string(),
      source_dir());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("train-00000-of-00001.parquet"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("question"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir / "out"));

  // A truncated parquet file.
  const std::string bytes = read_file(glue / "train-00000-of-00001.parquet");
  write_file(dir / "cut.parquet", bytes.substr(0, bytes.size() / 2));
  const CliRun cut = run_shmtrain(
      "train --do_train --config_name demo/paraphrase/config.json --tokenizer_name demo/paraphrase --train_file " +
          (dir / "cut.parquet").string() + " --output_dir " + (dir / "out").string(),
      source_dir());
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_NE(cut.err.find("cut.parquet"), std::string::npos) << cut.err;
  EXPECT_FALSE(fs::exists(dir / "out"));
}

}  // namespace
