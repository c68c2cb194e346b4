// `shmtrain train --task_name squad` end to end through the built binary, on the tiny SQuAD
// task of tests/fixtures/squad_tiny (tools/make_squad_fixture.py): a BERT and a DistilBERT
// question-answering model train from random weights, the run writes eval_predictions.json and
// eval_results.json, and this test scores the predictions again with its own code.
#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reference_run.hpp"
#include "squad_rescoring.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;

fs::path fixture() { return fixtures_dir() / "squad_tiny"; }

std::string qa_flags(const std::string& config, const fs::path& output_dir) {
  const fs::path f = fixture();
  return "train --do_train --task_name squad --config_name " + (f / config).string() + " --tokenizer_name " +
         (f / "vocab.txt").string() + " --train_file " + (f / "train.json").string() + " --validation_file " +
         (f / "dev.json").string() + " --output_dir " + output_dir.string() +
         " --max_seq_length 48 --doc_stride 16 --learning_rate 3e-3 --warmup_ratio 0.1 --num_train_epochs 10"
         " --logging_steps 20 --save_steps 0 --per_device_eval_batch_size 1 --do_eval";
}

struct Rescored {
  double exact_match = 0;
  double f1 = 0;
};

// Scores output_dir/eval_predictions.json against dev.json; every question must have an answer
// cut from its own context.
Rescored rescore(const fs::path& output_dir) {
  const nlohmann::json dev = nlohmann::json::parse(read_file(fixture() / "dev.json"));
  const nlohmann::json predictions = nlohmann::json::parse(read_file(output_dir / "eval_predictions.json"));
  Rescored scores;
  int questions = 0;
  for (const auto& paragraph : dev.at("data")[0].at("paragraphs")) {
    const std::string context = paragraph.at("context");
    for (const auto& qa : paragraph.at("qas")) {
      ++questions;
      const std::string id = qa.at("id");
      EXPECT_TRUE(predictions.contains(id)) << id;
      if (!predictions.contains(id)) continue;
      const std::string answer = predictions.at(id);
      EXPECT_NE(context.find(answer), std::string::npos) << id << ": '" << answer << "'";
      double best_em = 0;
      double best_f1 = 0;
      for (const auto& gold : qa.at("answers")) {
        best_em =
            std::max(best_em, squad_words(answer) == squad_words(gold.at("text")) ? 1.0 : 0.0);
        best_f1 = std::max(best_f1, squad_f1(answer, gold.at("text")));
      }
      scores.exact_match += best_em;
      scores.f1 += best_f1;
    }
  }
  EXPECT_EQ(predictions.size(), static_cast<std::size_t>(questions));
  scores.exact_match *= 100.0 / questions;
  scores.f1 *= 100.0 / questions;
  return scores;
}

TEST(SquadEndToEnd, BertTrainsAndItsPredictionsScoreAsReported) {
  const TempDir dir;
  const fs::path out = dir / "out";
  const CliRun result = run_shmtrain(qa_flags("bert_config.json", out));
  ASSERT_EQ(result.exit_code, 0) << result.output();
  EXPECT_NE(result.out.find("model: BertForQuestionAnswering"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("eval 53 windows of 40 questions"), std::string::npos) << result.out;

  const nlohmann::json eval = nlohmann::json::parse(read_file(out / "eval_results.json"));
  EXPECT_FALSE(eval.contains("eval_loss"));           // run_qa reports none
  EXPECT_EQ(eval.at("eval_samples").get<int>(), 53);  // windows, as run_qa counts them
  const Rescored rescored = rescore(out);
  EXPECT_NEAR(eval.at("eval_exact_match").get<double>(), rescored.exact_match, 1e-9);
  EXPECT_NEAR(eval.at("eval_f1").get<double>(), rescored.f1, 1e-9);
  std::printf("BERT QA: exact match %.1f, F1 %.1f\n", rescored.exact_match, rescored.f1);
  // Trained, not guessing: the loss falls, and more answers are right than a model that learnt
  // nothing would find (each context lists 2 to 7 places).
  const auto losses = metric_by_step(out / "metrics.jsonl", "loss");
  ASSERT_GE(losses.size(), 2u);
  EXPECT_LT(losses.back().second, 0.6 * losses.front().second);
  EXPECT_GE(rescored.exact_match, 15.0);

  // A folder Hugging Face loads as BertForQuestionAnswering: no pooler, qa_outputs.
  const model::BertConfig config = model::read_hf_config(out / "config.json");
  EXPECT_EQ(config.architectures, std::vector<std::string>{"BertForQuestionAnswering"});
  const io::SafetensorsReader weights(out / "model.safetensors");
  EXPECT_TRUE(weights.contains("qa_outputs.weight"));
  EXPECT_FALSE(weights.contains("bert.pooler.dense.weight"));
}

// Two workers train DistilBERT and shard the evaluation; the saved model evaluated again by one
// worker gives the same answers.
TEST(SquadEndToEnd, DistilBertOnTwoWorkersEvaluatesAsOneWorkerDoes) {
  const TempDir dir;
  const fs::path out = dir / "out";
  const CliRun result = run_shmtrain(qa_flags("distilbert_config.json", out) +
                                     " --nproc_per_node 2 --per_device_train_batch_size 8");
  ASSERT_EQ(result.exit_code, 0) << result.output();
  EXPECT_NE(result.out.find("training: 2 worker(s)"), std::string::npos) << result.out;
  const io::SafetensorsReader weights(out / "model.safetensors");
  EXPECT_TRUE(weights.contains("distilbert.transformer.layer.1.attention.q_lin.weight"));
  EXPECT_TRUE(weights.contains("qa_outputs.bias"));
  EXPECT_EQ(model::read_hf_config(out / "config.json").architectures,
            std::vector<std::string>{"DistilBertForQuestionAnswering"});
  const nlohmann::json eval = nlohmann::json::parse(read_file(out / "eval_results.json"));
  const Rescored rescored = rescore(out);
  EXPECT_NEAR(eval.at("eval_exact_match").get<double>(), rescored.exact_match, 1e-9);
  EXPECT_NEAR(eval.at("eval_f1").get<double>(), rescored.f1, 1e-9);

  const fs::path again = dir / "again";
  const CliRun single = run_shmtrain("train --do_train --task_name squad --do_train false --do_eval --model_name_or_path " +
                                     out.string() + " --validation_file " +
                                     (fixture() / "dev.json").string() + " --output_dir " + again.string() +
                                     " --max_seq_length 48 --doc_stride 16"
                                     " --per_device_eval_batch_size 1 --nproc_per_node 1");
  ASSERT_EQ(single.exit_code, 0) << single.output();
  EXPECT_EQ(read_file(again / "eval_predictions.json"), read_file(out / "eval_predictions.json"));
  const nlohmann::json eval_again = nlohmann::json::parse(read_file(again / "eval_results.json"));
  EXPECT_EQ(eval_again.at("eval_f1"), eval.at("eval_f1"));
}

}  // namespace
}  // namespace shmtrain::testing
