// `shmtrain train --task_name squad --version_2_with_negative` end to end through the built
// binary, on tests/fixtures/squad_v2_tiny (tools/make_squad_v2_fixture.py: SQuAD 2.0 JSON with
// unanswerable questions): a tiny BERT trains from random weights, the run writes run_qa's
// eval_/predict_ predictions, n-best and null-odds files and squad_v2's metrics, and this test
// scores eval_predictions.json again with its own code and checks the threshold rule against
// the null odds.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "squad_rescoring.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;
using SquadJson = nlohmann::ordered_json;

fs::path model_files() { return fixtures_dir() / "squad_tiny"; }
fs::path data() { return fixtures_dir() / "squad_v2_tiny"; }

std::string v2_flags(const fs::path& output_dir) {
  return fmt::format(
      "train --task_name squad --version_2_with_negative --config_name {} --tokenizer_name {} --train_file "
      "{} "
      "--validation_file {} --test_file {} --output_dir {} --do_train --do_eval --do_predict "
      "--max_seq_length 48 "
      "--doc_stride 16 --learning_rate 3e-3 --warmup_ratio 0.1 --num_train_epochs 10 --logging_steps 20 "
      "--save_steps 0 --per_device_eval_batch_size 1",
      (model_files() / "bert_config.json").string(), (model_files() / "vocab.txt").string(),
      (data() / "train.json").string(), (data() / "dev.json").string(), (data() / "dev.json").string(),
      output_dir.string());
}

struct Question {
  std::string id;
  std::vector<std::string> golds;  // empty: unanswerable
};

std::vector<Question> dev_questions() {
  std::vector<Question> out;
  const SquadJson dev = SquadJson::parse(read_file(data() / "dev.json"));
  for (const auto& paragraph : dev.at("data")[0].at("paragraphs")) {
    for (const auto& qa : paragraph.at("qas")) {
      Question& q = out.emplace_back();
      q.id = qa.at("id");
      for (const auto& answer : qa.at("answers")) q.golds.push_back(answer.at("text"));
    }
  }
  return out;
}

// The run's eval_results.json against a scoring of output_dir/eval_predictions.json written
// here (no-answer probability 0 everywhere, as run_qa passes it).
void expect_metrics_match_predictions(const fs::path& out) {
  const std::vector<Question> questions = dev_questions();
  const SquadJson predictions = SquadJson::parse(read_file(out / "eval_predictions.json"));
  ASSERT_EQ(predictions.size(), questions.size());
  double exact[2] = {0, 0};  // [unanswerable, answerable]
  double f1s[2] = {0, 0};
  double count[2] = {0, 0};
  double running = 0;  // find_best_thresh over questions in file order (probabilities all 0)
  double best_exact = 0;
  double running_f1 = 0;
  double best_f1 = 0;
  for (const Question& q : questions) {
    if (q.golds.empty()) {
      running += 1;
      running_f1 += 1;
    }
  }
  best_exact = running;
  best_f1 = running_f1;
  for (const Question& q : questions) {
    ASSERT_TRUE(predictions.contains(q.id)) << q.id;
    const std::string answer = predictions.at(q.id);
    const std::vector<std::string> golds = q.golds.empty() ? std::vector<std::string>{""} : q.golds;
    double e = 0;
    double f = 0;
    for (const std::string& gold : golds) {
      e = std::max(e, squad_words(answer) == squad_words(gold) ? 1.0 : 0.0);
      f = std::max(f, squad_f1(answer, gold));
    }
    const int has = q.golds.empty() ? 0 : 1;
    exact[has] += e;
    f1s[has] += f;
    count[has] += 1;
    running += has ? e : (answer.empty() ? 0.0 : -1.0);
    running_f1 += has ? f : (answer.empty() ? 0.0 : -1.0);
    best_exact = std::max(best_exact, running);
    best_f1 = std::max(best_f1, running_f1);
  }
  const double n = count[0] + count[1];
  const SquadJson eval = SquadJson::parse(read_file(out / "eval_results.json"));
  // squad_v2's keys with the trainer's eval_ prefix (the file sorts them, as Trainer.save_metrics
  // does); no exact_match.
  std::vector<std::string> keys;
  for (const auto& [key, value] : eval.items()) {
    if (key.find("exact") != std::string::npos || key.find("f1") != std::string::npos ||
        key.find("total") != std::string::npos)
      keys.push_back(key);
  }
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"eval_HasAns_exact", "eval_HasAns_f1", "eval_HasAns_total",
                                            "eval_NoAns_exact", "eval_NoAns_f1", "eval_NoAns_total",
                                            "eval_best_exact", "eval_best_exact_thresh", "eval_best_f1",
                                            "eval_best_f1_thresh", "eval_exact", "eval_f1", "eval_total"}));
  EXPECT_EQ(eval.at("eval_total").get<double>(), n);
  EXPECT_EQ(eval.at("eval_HasAns_total").get<double>(), count[1]);
  EXPECT_EQ(eval.at("eval_NoAns_total").get<double>(), count[0]);
  // Sums in another order than the metric's: equal to rounding.
  EXPECT_NEAR(eval.at("eval_exact").get<double>(), 100.0 * (exact[0] + exact[1]) / n, 1e-9);
  EXPECT_NEAR(eval.at("eval_f1").get<double>(), 100.0 * (f1s[0] + f1s[1]) / n, 1e-9);
  EXPECT_NEAR(eval.at("eval_HasAns_exact").get<double>(), 100.0 * exact[1] / count[1], 1e-9);
  EXPECT_NEAR(eval.at("eval_HasAns_f1").get<double>(), 100.0 * f1s[1] / count[1], 1e-9);
  EXPECT_NEAR(eval.at("eval_NoAns_exact").get<double>(), 100.0 * exact[0] / count[0], 1e-9);
  EXPECT_NEAR(eval.at("eval_NoAns_f1").get<double>(), 100.0 * f1s[0] / count[0], 1e-9);
  EXPECT_NEAR(eval.at("eval_best_exact").get<double>(), 100.0 * best_exact / n, 1e-9);
  EXPECT_NEAR(eval.at("eval_best_f1").get<double>(), 100.0 * best_f1 / n, 1e-9);
  EXPECT_EQ(eval.at("eval_best_exact_thresh").get<double>(), 0.0);
  EXPECT_EQ(eval.at("eval_best_f1_thresh").get<double>(), 0.0);
  std::printf("SQuAD 2.0: exact %.1f, f1 %.1f (HasAns %.1f, NoAns %.1f)\n", 100.0 * (exact[0] + exact[1]) / n,
              100.0 * (f1s[0] + f1s[1]) / n, 100.0 * exact[1] / count[1], 100.0 * exact[0] / count[0]);
}

// The best non-null text of each question's n-best list (utils_qa's best_non_null_pred).
std::string best_non_null(const SquadJson& nbest) {
  for (const auto& candidate : nbest) {
    if (!candidate.at("text").get<std::string>().empty()) return candidate.at("text");
  }
  return {};
}

// Each answer is "" exactly when the question's null odds exceed `threshold`, else the n-best
// list's best non-null text.
void expect_threshold_rule(const fs::path& out, double threshold, const SquadJson& nbest) {
  const SquadJson predictions = SquadJson::parse(read_file(out / "eval_predictions.json"));
  const SquadJson odds = SquadJson::parse(read_file(out / "eval_null_odds.json"));
  ASSERT_EQ(odds.size(), predictions.size());
  for (const auto& [id, answer] : predictions.items()) {
    const double diff = odds.at(id).get<double>();
    EXPECT_EQ(answer.get<std::string>(), diff > threshold ? "" : best_non_null(nbest.at(id))) << id;
  }
}

TEST(SquadV2EndToEnd, TrainsScoresAndWritesRunQasFiles) {
  const TempDir dir;
  const fs::path out = dir / "out";
  const CliRun result = run_shmtrain(v2_flags(out));
  ASSERT_EQ(result.exit_code, 0) << result.output();
  EXPECT_NE(result.out.find("model: BertForQuestionAnswering"), std::string::npos) << result.out;
  for (const char* name :
       {"eval_predictions.json", "eval_nbest_predictions.json", "eval_null_odds.json",
        "predict_predictions.json", "predict_nbest_predictions.json", "predict_null_odds.json"}) {
    EXPECT_TRUE(fs::exists(out / name)) << name;
  }
  EXPECT_FALSE(fs::exists(out / "predictions.json"));
  expect_metrics_match_predictions(out);

  // The n-best lists: at most n_best_size (20) + the null, probabilities summing to 1, and the
  // null ("") in every list.
  const SquadJson nbest = SquadJson::parse(read_file(out / "eval_nbest_predictions.json"));
  int abstained = 0;
  for (const auto& [id, list] : nbest.items()) {
    ASSERT_FALSE(list.empty()) << id;
    EXPECT_LE(list.size(), 21u) << id;
    double total = 0;
    bool null_seen = false;
    for (const auto& candidate : list) {
      total += candidate.at("probability").get<double>();
      null_seen = null_seen || candidate.at("text").get<std::string>().empty();
    }
    EXPECT_NEAR(total, 1.0, 1e-5) << id;
    EXPECT_TRUE(null_seen) << id;
  }
  expect_threshold_rule(out, 0.0, nbest);
  const SquadJson predictions = SquadJson::parse(read_file(out / "eval_predictions.json"));
  for (const auto& [id, answer] : predictions.items()) abstained += answer.get<std::string>().empty() ? 1 : 0;
  std::printf("%d of %zu questions answered \"\"\n", abstained, nbest.size());
  // --do_predict on the same file writes the same answers, lists and odds.
  EXPECT_EQ(read_file(out / "predict_predictions.json"), read_file(out / "eval_predictions.json"));
  EXPECT_EQ(read_file(out / "predict_nbest_predictions.json"),
            read_file(out / "eval_nbest_predictions.json"));
  EXPECT_EQ(read_file(out / "predict_null_odds.json"), read_file(out / "eval_null_odds.json"));

  // The trained model evaluated again with --null_score_diff_threshold at the median null odds:
  // the same logits, so the answers flip exactly where the odds exceed it.
  const SquadJson null_odds = SquadJson::parse(read_file(out / "eval_null_odds.json"));
  std::vector<double> odds;
  for (const auto& [id, diff] : null_odds.items()) odds.push_back(diff.get<double>());
  std::sort(odds.begin(), odds.end());
  const double threshold = odds[odds.size() / 2];
  const fs::path again = dir / "again";
  const CliRun eval = run_shmtrain(fmt::format(
      "train --task_name squad --version_2_with_negative --null_score_diff_threshold {:.17g} --do_eval "
      "--model_name_or_path {} --validation_file {} --output_dir {} --max_seq_length 48 --doc_stride 16 "
      "--per_device_eval_batch_size 1",
      threshold, out.string(), (data() / "dev.json").string(), again.string()));
  ASSERT_EQ(eval.exit_code, 0) << eval.output();
  EXPECT_EQ(read_file(again / "eval_null_odds.json"), read_file(out / "eval_null_odds.json"));
  expect_threshold_rule(again, threshold, nbest);
  expect_metrics_match_predictions(again);
}

}  // namespace
}  // namespace shmtrain::testing
