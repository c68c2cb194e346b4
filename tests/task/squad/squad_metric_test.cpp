// SQuAD v1.1's exact match and F1 on hand-computed cases: the answer normalisation step by step,
// word-overlap F1, and the best over the gold answers.
#include "shmtrain/task/squad/squad_metric.hpp"

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::task {
namespace {

TEST(SquadMetric, NormalisationLowersStripsPunctuationArticlesAndSpaces) {
  EXPECT_EQ(normalize_squad_answer("The Eiffel  Tower!"), "eiffel tower");
  // punctuation goes first, then the whole words a / an / the, then the spaces collapse.
  EXPECT_EQ(normalize_squad_answer("  A cat, an apple & the\tdog."), "cat apple dog");
  EXPECT_EQ(normalize_squad_answer("theater anathema"), "theater anathema");  // not whole words
  EXPECT_EQ(normalize_squad_answer("the-a"), "thea");                         // '-' removed first
  EXPECT_EQ(normalize_squad_answer("snake_case"), "snakecase");               // '_' is ASCII punctuation
  // Only ASCII punctuation is removed; Unicode letters are lower-cased as Python does, the
  // Greek capital sigma as a final sigma at the end of a word.
  EXPECT_EQ(normalize_squad_answer("\u00abStra\u00dfe\u00bb \u00dcNICODE"),
            "\u00abstra\u00dfe\u00bb \u00fcnicode");
  EXPECT_EQ(normalize_squad_answer("\u039f\u0394\u039f\u03a3 \u03a3\u0391"),
            "\u03bf\u03b4\u03bf\u03c2 \u03c3\u03b1");
  EXPECT_EQ(normalize_squad_answer("\u00a0the\u3000"), "");  // Unicode spaces are spaces
}

TEST(SquadMetric, ExactMatchAndF1OfOnePair) {
  EXPECT_TRUE(squad_exact_match("the Beatles", "Beatles"));
  EXPECT_FALSE(squad_exact_match("Beatles!", "The Beatle"));
  // [cat sat on mat] vs [cat on mat]: 3 shared, P 3/4, R 1, F1 = 2 * 0.75 / 1.75.
  EXPECT_DOUBLE_EQ(squad_f1("the cat sat on the mat", "a cat on a mat"), 2 * 0.75 / 1.75);
  // Multiset overlap: [x x y] vs [x y y] share one x and one y: P = R = 2/3.
  EXPECT_DOUBLE_EQ(squad_f1("x x y", "x y y"), 2.0 / 3.0);
  EXPECT_EQ(squad_f1("dog", "cat"), 0.0);
  EXPECT_EQ(squad_f1("", "cat"), 0.0);
  EXPECT_EQ(squad_f1("the", "a"), 0.0);  // both normalise to nothing: no shared word
  EXPECT_TRUE(squad_exact_match("the", "a"));
}

TEST(SquadMetric, ScoresTakeTheBestGoldAnswerAndArePercentages) {
  const std::vector<std::string> predictions = {"Beatles", "cat sat", "nothing"};
  const std::vector<std::vector<std::string>> golds = {{"The Beatles"}, {"the cat", "cat sat down"}, {"x"}};
  const SquadScores scores = squad_scores(predictions, golds);
  // EM: 1, 0, 0. F1: 1, max(2 * 0.5 * 1 / 1.5, 2 * 1 * (2/3) / (5/3)) = 0.8, 0.
  EXPECT_DOUBLE_EQ(scores.exact_match, 100.0 / 3.0);
  EXPECT_DOUBLE_EQ(scores.f1, 100.0 * 1.8 / 3.0);
  EXPECT_EQ(squad_scores({}, {}).f1, 0.0);
  EXPECT_THROW(squad_scores(predictions, {}), Error);
}

}  // namespace
}  // namespace shmtrain::task
