// SQuAD 2.0's metric (evaluate's squad_v2 = evaluate-v2.0.py) on hand-built cases: the pair
// scores by hand, and whole evaluations against the numbers tools/make_squad_v2_metric_fixture.py
// computes with the official script's formulas (tests/fixtures/squad_v2_metric), key names and
// order included.
#include "shmtrain/task/squad/squad_v2_metric.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "support/test_support.hpp"

namespace shmtrain::task {
namespace {

using shmtrain::testing::fixtures_dir;
using shmtrain::testing::read_file;

TEST(SquadV2Metric, F1IsOneWhenBothSidesHaveNoWordsAndZeroWhenOneHas) {
  EXPECT_EQ(squad_v2_f1("", ""), 1.0);
  EXPECT_EQ(squad_v2_f1("the", ""), 1.0);  // "the" normalises to nothing
  EXPECT_EQ(squad_v2_f1("", "a"), 1.0);
  EXPECT_EQ(squad_v2_f1("Paris", ""), 0.0);
  EXPECT_EQ(squad_v2_f1("", "Paris"), 0.0);
  // Otherwise SQuAD v1.1's: [cat sat] vs [cat sat on mat]: P 1, R 1/2.
  EXPECT_DOUBLE_EQ(squad_v2_f1("a cat sat", "the cat sat on the mat"), 2 * 0.5 / 1.5);
}

TEST(SquadV2Metric, UnanswerableQuestionsScoreTheEmptyAnswer) {
  // q1 answerable and right; q2 unanswerable, abstained; q3 unanswerable, answered.
  const std::vector<std::string> predictions = {"Denver Broncos", "", "Panthers"};
  const std::vector<std::vector<std::string>> golds = {{"the Denver Broncos"}, {}, {}};
  const SquadV2Scores scores = squad_v2_scores(predictions, golds);
  EXPECT_DOUBLE_EQ(scores.all.exact, 200.0 / 3.0);
  EXPECT_DOUBLE_EQ(scores.all.f1, 200.0 / 3.0);
  EXPECT_EQ(scores.all.total, 3u);
  ASSERT_TRUE(scores.has_ans && scores.no_ans);
  EXPECT_EQ(scores.has_ans->exact, 100.0);
  EXPECT_EQ(scores.has_ans->total, 1u);
  EXPECT_EQ(scores.no_ans->exact, 50.0);
  EXPECT_EQ(scores.no_ans->total, 2u);
  // All probabilities 0: start from the 2 unanswerable, +1 for q1, 0 for q2, -1 for q3; the
  // best running score is 3 of 3 after q1.
  EXPECT_EQ(scores.best_exact, 100.0);
  EXPECT_EQ(scores.best_exact_thresh, 0.0);
  EXPECT_EQ(scores.best_f1, 100.0);

  const auto named = squad_v2_named(scores);
  std::vector<std::string> keys;
  for (const auto& [key, value] : named) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"exact", "f1", "total", "HasAns_exact", "HasAns_f1",
                                            "HasAns_total", "NoAns_exact", "NoAns_f1", "NoAns_total",
                                            "best_exact", "best_exact_thresh", "best_f1", "best_f1_thresh"}));
  EXPECT_EQ(squad_v2_scores({}, {}).all.total, 0u);
  EXPECT_THROW(squad_v2_scores(predictions, {}), Error);
}

TEST(SquadV2Metric, MatchesTheOfficialFormulasOnTheFixtureCases) {
  const auto dir = fixtures_dir() / "squad_v2_metric";
  const auto cases = nlohmann::ordered_json::parse(read_file(dir / "cases.json"));
  const auto expected = nlohmann::ordered_json::parse(read_file(dir / "expected.json"));
  ASSERT_EQ(cases.size(), expected.size());
  for (const auto& [name, c] : cases.items()) {
    SCOPED_TRACE(name);
    const auto predictions = c.at("predictions").get<std::vector<std::string>>();
    const auto golds = c.at("golds").get<std::vector<std::vector<std::string>>>();
    const auto na_probs = c.value("na_probs", std::vector<float>{});
    const auto named =
        squad_v2_named(squad_v2_scores(predictions, golds, na_probs, c.value("na_prob_thresh", 1.0)));
    const nlohmann::ordered_json& want = expected.at(name);
    ASSERT_EQ(named.size(), want.size());
    std::size_t i = 0;
    for (const auto& [key, value] : want.items()) {
      EXPECT_EQ(named[i].first, key);
      // The same operations in the same order as the Python script: equal to the last bit.
      EXPECT_EQ(named[i].second, value.get<double>()) << key;
      ++i;
    }
  }
}

}  // namespace
}  // namespace shmtrain::task
