// --task_name reranking through the built binary on the PyTorch fixture
// tests/fixtures/reranking/bert_tiny_cls (tools/make_reranker_references.py): BinaryCrossEntropyLoss's
// losses are PyTorch's at every step on 1 worker and on 2; CrossEncoderRerankingEvaluator's figures
// are the port's over scikit-learn; the saved folder is what CrossEncoder loads; bad input is an
// error naming the file and line.
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reference_run.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace reranking_cli_test {

namespace fs = std::filesystem;

fs::path fixture() { return fixtures_dir() / "reranking" / "bert_tiny_cls"; }

nlohmann::json reference() { return nlohmann::json::parse(read_file(fixture() / "reference.json")); }

std::string flags(const fs::path& out) {
  return "train --task_name reranking --do_train --model_name_or_path " + fixture().string() + " --train_file " +
         (fixture() / "pairs.jsonl").string() + " --output_dir " + out.string() +
         " --max_seq_length 32 --learning_rate 1e-3 --weight_decay 0.01 --lr_scheduler_type constant --shuffle false"
         " --logging_steps 1 --num_train_epochs 1 --save_steps 0 --disable_tqdm";
}

TEST(Reranking, BinaryCrossEntropyLossesEqualPyTorchOnOneAndTwoWorkers) {
  const TempDir dir;
  for (const char* name : {"bce", "bce_pos_weight"}) {
    const nlohmann::json c = reference()["cases"][name];
    const auto expected = c["losses"].get<std::vector<double>>();
    for (const std::string workers : {" --per_device_train_batch_size 8",
                                      " --per_device_train_batch_size 4 --nproc_per_node 2"}) {
      SCOPED_TRACE(std::string(name) + workers);
      const fs::path out = dir / (std::string(name) + std::to_string(workers.size()));
      const CliRun run = run_shmtrain(flags(out) + " " + c["flags"].get<std::string>() + workers);
      ASSERT_EQ(run.exit_code, 0) << run.output();
      const auto losses = logged_losses(out / "metrics.jsonl");
      ASSERT_EQ(losses.size(), expected.size());
      for (std::size_t i = 0; i < losses.size(); ++i) {
        EXPECT_NEAR(losses[i], expected[i], 1e-4 * std::abs(expected[i])) << "step " << i + 1;
      }
    }
  }
}

// ListNetLoss and LambdaLoss (NDCGLoss2++, and NDCGLoss1 whose pairs include the diagonal) over
// labeled lists of 1 to 6 documents: 4 lists a step on 1 worker, 2 on each of 2 (the normaliser,
// lists or pairs, summed across the workers). MultipleNegativesRankingLoss over pairs and
// triplets with every in-batch negative, on 1 worker (its negatives are a worker's batch's, as
// under DDP: 2 workers train another model).
TEST(Reranking, ListwiseLossesEqualPyTorchOnOneAndTwoWorkers) {
  const TempDir dir;
  const auto listwise = nlohmann::json::parse(read_file(fixture() / "listwise.json"));
  int runs = 0;
  for (const auto& [name, c] : listwise["cases"].items()) {
    const auto expected = c["losses"].get<std::vector<double>>();
    const bool in_batch = name.starts_with("mnrl");
    for (const std::string workers : {" --per_device_train_batch_size 4",
                                      " --per_device_train_batch_size 2 --nproc_per_node 2"}) {
      if (in_batch && workers.find("nproc") != std::string::npos) continue;
      SCOPED_TRACE(name + workers);
      const fs::path out = dir / (name + std::to_string(workers.size()));
      std::string arguments = flags(out) + " " + c["flags"].get<std::string>() + workers;
      arguments.replace(arguments.find("pairs.jsonl"), 11, c["train_file"].get<std::string>());
      const CliRun run = run_shmtrain(arguments + " --max_seq_length 64");
      ASSERT_EQ(run.exit_code, 0) << run.output();
      const auto losses = logged_losses(out / "metrics.jsonl");
      ASSERT_EQ(losses.size(), expected.size());
      for (std::size_t i = 0; i < losses.size(); ++i) {
        EXPECT_NEAR(losses[i], expected[i], 1e-4 * std::abs(expected[i])) << "step " << i + 1;
      }
      ++runs;
    }
  }
  EXPECT_EQ(runs, 8);
}

// CrossEntropyLoss: a 3-class pair classifier (tests/fixtures/reranking/bert_tiny_cls3); its
// folder is a CrossEncoder's with the Identity activation.
TEST(Reranking, CrossEntropyLossEqualsPyTorchOnOneAndTwoWorkers) {
  const TempDir dir;
  const fs::path folder = fixtures_dir() / "reranking" / "bert_tiny_cls3";
  const auto c = nlohmann::json::parse(read_file(folder / "reference.json"))["cases"]["cross_entropy"];
  const auto expected = c["losses"].get<std::vector<double>>();
  for (const std::string workers : {" --per_device_train_batch_size 8",
                                    " --per_device_train_batch_size 4 --nproc_per_node 2"}) {
    SCOPED_TRACE(workers);
    const fs::path out = dir / std::to_string(workers.size());
    const CliRun run = run_shmtrain("train --task_name reranking --do_train --model_name_or_path " + folder.string() +
                                    " --train_file " + (folder / "classes.jsonl").string() + " --output_dir " +
                                    out.string() +
                                    " --max_seq_length 32 --learning_rate 1e-3 --weight_decay 0.01 "
                                    "--lr_scheduler_type constant --shuffle false --logging_steps 1 "
                                    "--num_train_epochs 1 --save_steps 0 --disable_tqdm --loss CrossEntropyLoss" +
                                    workers);
    ASSERT_EQ(run.exit_code, 0) << run.output();
    const auto losses = logged_losses(out / "metrics.jsonl");
    ASSERT_EQ(losses.size(), expected.size());
    for (std::size_t i = 0; i < losses.size(); ++i) {
      EXPECT_NEAR(losses[i], expected[i], 1e-4 * std::abs(expected[i])) << "step " << i + 1;
    }
    const auto config = nlohmann::json::parse(read_file(out / "config.json"));
    EXPECT_EQ(config["id2label"].size(), 3u);
    EXPECT_EQ(config["sentence_transformers"]["activation_fn"], "torch.nn.modules.linear.Identity");
  }
  // CrossEncoderClassificationEvaluator after the 20 steps: the F1s of PyTorch's trained model.
  const fs::path out = dir / "eval";
  const CliRun run = run_shmtrain("train --task_name reranking --do_train --do_eval --model_name_or_path " +
                                  folder.string() + " --train_file " + (folder / "classes.jsonl").string() +
                                  " --validation_file " + (folder / "classes_dev.jsonl").string() + " --output_dir " +
                                  out.string() +
                                  " --max_seq_length 32 --learning_rate 1e-3 --weight_decay 0.01 "
                                  "--lr_scheduler_type constant --shuffle false --num_train_epochs 1 --save_steps 0 "
                                  "--disable_tqdm --loss CrossEntropyLoss --per_device_train_batch_size 8");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  const auto results = nlohmann::json::parse(read_file(out / "eval_results.json"));
  const auto f1 = nlohmann::json::parse(read_file(folder / "reference.json"))["evaluation"];
  for (const char* key : {"f1_macro", "f1_micro", "f1_weighted"}) {
    ASSERT_TRUE(results.contains(std::string("eval_classes_dev_") + key)) << results.dump();
    EXPECT_NEAR(results[std::string("eval_classes_dev_") + key].get<double>(), f1[key].get<double>(), 1e-9);
  }
}

TEST(Reranking, TheSavedFolderIsACrossEncoders) {
  const TempDir dir;
  const CliRun run = run_shmtrain(flags(dir / "out") + " --per_device_train_batch_size 8 --max_steps 2");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  const auto config = nlohmann::json::parse(read_file(dir / "out" / "config.json"));
  EXPECT_EQ(config["architectures"], nlohmann::json::array({"BertForSequenceClassification"}));
  EXPECT_EQ(config["id2label"].size(), 1u);
  EXPECT_EQ(config["sentence_transformers"]["activation_fn"], "torch.nn.modules.activation.Sigmoid");
  const auto st = nlohmann::json::parse(read_file(dir / "out" / "config_sentence_transformers.json"));
  EXPECT_EQ(st["model_type"], "CrossEncoder");
  // The folder trains on as a reranker again.
  const CliRun again = run_shmtrain("train --task_name reranking --do_train --model_name_or_path " +
                                    (dir / "out").string() + " --train_file " + (fixture() / "pairs.jsonl").string() +
                                    " --output_dir " + (dir / "again").string() +
                                    " --max_steps 1 --save_steps 0 --disable_tqdm");
  EXPECT_EQ(again.exit_code, 0) << again.output();
}

// CrossEncoderRerankingEvaluator over the samples (negatives, and first-stage rankings with the
// positive inside, or missing): the initial model's figures are the port's.
TEST(Reranking, EvaluatesAsCrossEncoderRerankingEvaluator) {
  const TempDir dir;
  const CliRun run = run_shmtrain("train --task_name reranking --do_eval --model_name_or_path " + fixture().string() +
                                  " --validation_file " + (fixture() / "samples.jsonl").string() + " --output_dir " +
                                  (dir / "out").string() + " --max_seq_length 32 --disable_tqdm");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  const auto results = nlohmann::json::parse(read_file(dir / "out" / "eval_results.json"));
  const nlohmann::json expected = reference()["evaluation"];
  ASSERT_EQ(expected.size(), 6u);
  for (const auto& [key, value] : expected.items()) {
    ASSERT_TRUE(results.contains("eval_samples_" + key)) << results.dump();
    EXPECT_NEAR(results["eval_samples_" + key].get<double>(), value.get<double>(), 1e-6) << key;
  }
  // Two workers, each scoring its share: the same figures.
  const CliRun two = run_shmtrain("train --task_name reranking --do_eval --model_name_or_path " + fixture().string() +
                                  " --validation_file " + (fixture() / "samples.jsonl").string() + " --output_dir " +
                                  (dir / "two").string() + " --max_seq_length 32 --disable_tqdm --nproc_per_node 2");
  ASSERT_EQ(two.exit_code, 0) << two.output();
  const auto results2 = nlohmann::json::parse(read_file(dir / "two" / "eval_results.json"));
  for (const auto& [key, value] : expected.items()) {
    EXPECT_NEAR(results2["eval_samples_" + key].get<double>(), value.get<double>(), 1e-6) << key;
  }
}

// `shmtrain rerank`: CrossEncoder.predict's scores (the folder's Sigmoid) of each query with its
// candidates, each list reordered best first with corpus_id its place in the input.
TEST(Reranking, RerankScoresAndOrdersAsCrossEncoderRank) {
  const TempDir dir;
  const nlohmann::json expected = reference()["rank"];
  std::string queries, candidates;
  for (const auto& item : expected) {
    queries += item["query"].get<std::string>() + "\n";
    candidates += nlohmann::json({{"documents", item["documents"]}}).dump() + "\n";
  }
  write_file(dir / "queries.txt", queries);
  write_file(dir / "candidates.jsonl", candidates);
  const CliRun run = run_shmtrain("rerank --model_name_or_path " + fixture().string() + " --queries " +
                                  (dir / "queries.txt").string() + " --candidates " + (dir / "candidates.jsonl").string() +
                                  " --output " + (dir / "ranked.jsonl").string() + " --batch_size 5");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  std::ifstream in(dir / "ranked.jsonl");
  std::size_t q = 0;
  for (std::string line; std::getline(in, line); ++q) {
    ASSERT_LT(q, expected.size());
    const auto got = nlohmann::json::parse(line);
    const auto scores = expected[q]["scores"].get<std::vector<double>>();
    EXPECT_EQ(got["query"], expected[q]["query"]);
    ASSERT_EQ(got["ranking"].size(), scores.size());
    double previous = 2.0;
    for (const auto& entry : got["ranking"]) {
      const auto id = entry["corpus_id"].get<std::size_t>();
      EXPECT_NEAR(entry["score"].get<double>(), scores[id], 1e-6);
      EXPECT_EQ(entry["text"], expected[q]["documents"][id]);
      EXPECT_LE(entry["score"].get<double>(), previous);
      previous = entry["score"].get<double>();
    }
  }
  EXPECT_EQ(q, expected.size());

  write_file(dir / "short.jsonl", nlohmann::json({{"documents", {"lol"}}}).dump() + "\n");
  const CliRun bad = run_shmtrain("rerank --model_name_or_path " + fixture().string() + " --queries " +
                                  (dir / "queries.txt").string() + " --candidates " + (dir / "short.jsonl").string() +
                                  " --output " + (dir / "bad.jsonl").string());
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("1 lines of candidates for 12 queries"), std::string::npos) << bad.output();
  EXPECT_FALSE(fs::exists(dir / "bad.jsonl"));
}

TEST(Reranking, BadInputNamesTheFileLineOrFlag) {
  const TempDir dir;
  auto fails = [&](const std::string& arguments, const std::string& message) {
    const CliRun run = run_shmtrain("train --task_name reranking --model_name_or_path " + fixture().string() +
                                    " --output_dir " + (dir / "out").string() + " " + arguments);
    EXPECT_NE(run.exit_code, 0) << arguments;
    EXPECT_NE(run.err.find(message), std::string::npos) << run.output();
  };
  write_file(dir / "bad_label.jsonl", "{\"query\": \"lol\", \"document\": \"bil\", \"label\": 1}\n"
                                      "{\"query\": \"lol\", \"document\": \"bel\", \"label\": 1.5}\n");
  fails("--do_train --train_file " + (dir / "bad_label.jsonl").string(),
        (dir / "bad_label.jsonl").string() + ":2: label 1.5 is outside [0, 1]");
  write_file(dir / "three.jsonl", "{\"query\": \"lol\", \"a\": \"bil\", \"b\": \"bel\", \"label\": 1}\n");
  fails("--do_train --train_file " + (dir / "three.jsonl").string(),
        "BinaryCrossEntropyLoss takes (query, document, label) rows");
  write_file(dir / "empty.jsonl", "{\"query\": \"lol\", \"positive\": [], \"negative\": []}\n");
  fails("--do_eval --validation_file " + (dir / "empty.jsonl").string(),
        (dir / "empty.jsonl").string() + ":1: the sample has no candidate to rank");
  write_file(dir / "both.jsonl", "{\"query\": \"lol\", \"positive\": [\"bil\"], \"negative\": [], \"documents\": []}\n");
  fails("--do_eval --validation_file " + (dir / "both.jsonl").string(),
        (dir / "both.jsonl").string() + ":1: a reranking sample needs exactly one of 'negative' and 'documents'");
  fails("--do_train --train_file " + (fixture() / "pairs.jsonl").string() + " --loss RankNetLoss",
        "--loss RankNetLoss: the reranking task trains with BinaryCrossEntropyLoss");
  fails("--do_train --train_file " + (fixture() / "pairs.jsonl").string() + " --loss LambdaLoss",
        (fixture() / "pairs.jsonl").string() + ":1: column 'document' must hold a list of texts");
  fails("--do_train --train_file " + (fixture() / "lists.jsonl").string() +
            " --loss LambdaLoss --lambda_weighting_scheme ndcg",
        "--lambda_weighting_scheme 'ndcg': LambdaLoss's weighting schemes are");
  // Listwise rows: a label per document, at least one document, lists in list columns.
  write_file(dir / "uneven.jsonl", "{\"query\": \"lol\", \"docs\": [\"bil\", \"bel\"], \"labels\": [1, 0]}\n"
                                   "{\"query\": \"lol\", \"docs\": [\"bil\", \"bel\"], \"labels\": [1]}\n");
  fails("--do_train --loss ListNetLoss --train_file " + (dir / "uneven.jsonl").string(),
        (dir / "uneven.jsonl").string() + ":2: column 'docs' has 2 texts and column 'labels' 1 labels");
  write_file(dir / "no_docs.jsonl", "{\"query\": \"lol\", \"docs\": [], \"labels\": []}\n");
  fails("--do_train --loss LambdaLoss --train_file " + (dir / "no_docs.jsonl").string(),
        (dir / "no_docs.jsonl").string() + ":1: the query has no candidate to rank (an empty list)");
  write_file(dir / "flat.jsonl", "{\"query\": \"lol\", \"docs\": \"bil\", \"labels\": [1]}\n");
  fails("--do_train --loss LambdaLoss --train_file " + (dir / "flat.jsonl").string(),
        (dir / "flat.jsonl").string() + ":1: column 'docs' must hold a list of texts");
  write_file(dir / "class.jsonl", "{\"query\": \"lol\", \"document\": \"bil\", \"label\": 0.5}\n");
  fails("--do_train --loss CrossEntropyLoss --train_file " + (dir / "class.jsonl").string(),
        (dir / "class.jsonl").string() + ":1: label 0.5 is not a class id");
  fails("--do_train --train_file " + (fixture() / "pairs.jsonl").string() + " --pos_weight 0",
        "--pos_weight 0: the positives' weight must be a positive number");
}

}  // namespace reranking_cli_test
}  // namespace shmtrain::testing
