// utils_qa.py's post-processing with version_2_with_negative on hand-written logits: the null
// score at position 0, the window with the lowest one, the threshold on null - best span, the
// n-best list (kept n_best_size, the null appended back, "empty" when only the null is left)
// and its probabilities; and the n-best list of SQuAD v1.1.
#include "shmtrain/task/squad/postprocess.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "postprocess_windows.hpp"

namespace shmtrain::task {
namespace {

using postprocess_windows::kSeq;
using postprocess_windows::set;

SquadWindows two_short_questions() { return postprocess_windows::two_questions("x y z w", {{0, 1}, {2, 3}, {4, 5}, {6, 7}}); }

QaPostprocessOptions v2(std::int64_t n_best_size, double threshold = 0.0) {
  return {.n_best_size = n_best_size,
          .max_answer_length = 30,
          .version_2_with_negative = true,
          .null_score_diff_threshold = threshold};
}

// softmax in double; the float32 computation agrees to float32's precision.
std::vector<double> softmax(const std::vector<double>& scores) {
  double sum = 0;
  for (const double s : scores) sum += std::exp(s);
  std::vector<double> out;
  for (const double s : scores) out.push_back(std::exp(s) / sum);
  return out;
}

void expect_candidate(const QaCandidate& c, const std::string& text, float start, float end,
                      double probability, double tolerance = 1e-7) {
  EXPECT_EQ(c.text, text);
  EXPECT_EQ(c.start_logit, start) << text;
  EXPECT_EQ(c.end_logit, end) << text;
  EXPECT_NEAR(c.probability, probability, tolerance) << text;
}

TEST(QaPostprocessV2, NullWinsWhenItBeatsTheBestSpanByMoreThanTheThreshold) {
  SquadWindows text = two_short_questions();
  text.windows.resize(1);  // q0's first window only; q1 has none
  text.file.examples.resize(1);
  std::vector<float> logits(kSeq * 2, -10.0f);
  set(logits, 0, 0, 2.0f, 1.0f);  // null score 3
  set(logits, 0, 4, 1.5f, -10);   // "bb"
  set(logits, 0, 5, -10, 0.5f);   // "ccc": the span "bb ccc" scores 2
  const auto predict = [&](double threshold) {
    return postprocess_qa(text, logits, kSeq, v2(2, threshold))[0];
  };

  const QaPrediction p = predict(0.0);
  // score_diff = 3 - 1.5 - 0.5 = 1 > 0: no answer.
  EXPECT_EQ(p.answer, "");
  ASSERT_TRUE(p.score_diff.has_value());
  EXPECT_EQ(*p.score_diff, 1.0);
  ASSERT_EQ(p.nbest.size(), 2u);
  const std::vector<double> probabilities = softmax({3, 2});
  expect_candidate(p.nbest[0], "", 2.0f, 1.0f, probabilities[0]);
  expect_candidate(p.nbest[1], "bb ccc", 1.5f, 0.5f, probabilities[1]);
  EXPECT_FALSE(p.nbest[0].placeholder);
  EXPECT_EQ(predict(0.99).answer, "");
  EXPECT_EQ(predict(1.0).answer, "bb ccc");  // not more than the threshold
  EXPECT_EQ(predict(2.5).answer, "bb ccc");
  EXPECT_EQ(predict(-5.0).answer, "");

  // SQuAD v1.1 on the same logits: the best span, no null, no score_diff.
  const QaPrediction v1 = postprocess_qa(text, logits, kSeq, {.n_best_size = 2, .max_answer_length = 30})[0];
  EXPECT_EQ(v1.answer, "bb ccc");
  EXPECT_FALSE(v1.score_diff.has_value());
  ASSERT_EQ(v1.nbest.size(), 1u);
  expect_candidate(v1.nbest[0], "bb ccc", 1.5f, 0.5f, 1.0, 0.0);
}

TEST(QaPostprocessV2, TheNullIsTheLowestOverTheWindowsAndComesBackWhenCut) {
  const SquadWindows text = two_short_questions();
  std::vector<float> logits(3 * kSeq * 2, -10.0f);
  // Window 0: null 3 + 2 = 5; the span "a bb" (positions 3-4) scores 4 + 1 = 5.
  set(logits, 0, 0, 3.0f, 2.0f);
  set(logits, 0, 3, 4.0f, -10);
  set(logits, 0, 4, -10, 1.0f);
  // Window 1: null 0.25 + 0.75 = 1, the lowest; the span "dddd eeeee" (5-6) scores 2 + 1.5.
  set(logits, 1, 0, 0.25f, 0.75f);
  set(logits, 1, 5, 2.0f, -10);
  set(logits, 1, 6, -10, 1.5f);
  // q1: null 0 + 0 = 0 beats "y z" (-1 + -1) by 2.
  set(logits, 2, 0, 0.0f, 0.0f);
  set(logits, 2, 4, -1.0f, -10);
  set(logits, 2, 5, -10, -1.0f);
  const std::vector<QaPrediction> p = postprocess_qa(text, logits, kSeq, v2(2));
  ASSERT_EQ(p.size(), 2u);
  // The two spans are the n_best_size 2 best (5 and 3.5); the null (1) was cut and comes back
  // last. score_diff = 1 - 4 - 1 = -4.
  EXPECT_EQ(p[0].answer, "a bb");
  EXPECT_EQ(*p[0].score_diff, -4.0);
  ASSERT_EQ(p[0].nbest.size(), 3u);
  const std::vector<double> probabilities = softmax({5, 3.5, 1});
  expect_candidate(p[0].nbest[0], "a bb", 4.0f, 1.0f, probabilities[0]);
  expect_candidate(p[0].nbest[1], "dddd eeeee", 2.0f, 1.5f, probabilities[1]);
  expect_candidate(p[0].nbest[2], "", 0.25f, 0.75f, probabilities[2]);
  EXPECT_EQ(p[1].answer, "");
  EXPECT_EQ(*p[1].score_diff, 2.0);
  ASSERT_EQ(p[1].nbest.size(), 2u);
  EXPECT_EQ(p[1].nbest[0].text, "");
  EXPECT_EQ(p[1].nbest[1].text, "y z");

  // Equal null scores: the first window's null is kept.
  std::vector<float> tied = logits;
  set(tied, 0, 0, 0.5f, 0.5f);
  const QaPrediction t = postprocess_qa(text, tied, kSeq, v2(2))[0];
  ASSERT_EQ(t.nbest.size(), 3u);
  EXPECT_EQ(t.nbest[2].start_logit, 0.5f);
  EXPECT_EQ(t.nbest[2].end_logit, 0.5f);
  // A null that ties a span sorts after it (it joins the candidates last; the sort is stable).
  std::vector<float> level = logits;
  set(level, 1, 0, 1.75f, 1.75f);  // null 3.5, as "dddd eeeee"; window 0's is 5
  const QaPrediction l = postprocess_qa(text, level, kSeq, v2(3))[0];
  ASSERT_EQ(l.nbest.size(), 3u);
  EXPECT_EQ(l.nbest[1].text, "dddd eeeee");
  EXPECT_EQ(l.nbest[2].text, "");
}

TEST(QaPostprocessV2, OnlyTheNullLeftPutsRunQasEmptyFirst) {
  const SquadWindows text = two_short_questions();
  std::vector<float> logits(3 * kSeq * 2, -10.0f);
  set(logits, 2, 0, 1.0f, 1.0f);  // q1: null 2, and with n_best_size 1 no span is tried
  const auto predict = [&](double threshold) {
    return postprocess_qa(text, logits, kSeq, v2(1, threshold))[1];
  };
  const QaPrediction p = predict(0.0);
  ASSERT_EQ(p.nbest.size(), 2u);
  // The "empty" entry (logits 0, score 0) is the best non-null: score_diff = 2 - 0 - 0.
  // Probabilities in float64, as NumPy's array of 0.0 and a float32 is.
  const std::vector<double> probabilities = softmax({0, 2});
  expect_candidate(p.nbest[0], "empty", 0.0f, 0.0f, probabilities[0], 1e-15);
  expect_candidate(p.nbest[1], "", 1.0f, 1.0f, probabilities[1], 1e-15);
  EXPECT_TRUE(p.nbest[0].placeholder);
  EXPECT_EQ(*p.score_diff, 2.0);
  EXPECT_EQ(p.answer, "");
  EXPECT_EQ(predict(2.0).answer, "empty");
  // SQuAD v1.1 without a candidate: "empty" alone, probability 1.
  const QaPrediction v1 = postprocess_qa(text, logits, kSeq, {.n_best_size = 1, .max_answer_length = 30})[1];
  EXPECT_EQ(v1.answer, "empty");
  ASSERT_EQ(v1.nbest.size(), 1u);
  expect_candidate(v1.nbest[0], "empty", 0.0f, 0.0f, 1.0, 0.0);
}

TEST(QaPostprocessV1, NBestIsEveryValidPairSortedAndCut) {
  const SquadWindows text = two_short_questions();
  std::vector<float> logits(3 * kSeq * 2, -10.0f);
  // q1 (positions 3-6 = x y z w): starts x 3, y 1; ends y 2, w 0.5.
  set(logits, 2, 3, 3.0f, -10);
  set(logits, 2, 4, 1.0f, 2.0f);
  set(logits, 2, 6, -10, 0.5f);
  // n_best_size 2: starts {x, y}, ends {y, w}: x-y 5, x-w 3.5, y-y 3, y-w 1.5; the best two kept.
  const QaPrediction p = postprocess_qa(text, logits, kSeq, {.n_best_size = 2, .max_answer_length = 30})[1];
  EXPECT_EQ(p.answer, "x y");
  ASSERT_EQ(p.nbest.size(), 2u);
  const std::vector<double> probabilities = softmax({5, 3.5});
  expect_candidate(p.nbest[0], "x y", 3.0f, 2.0f, probabilities[0]);
  expect_candidate(p.nbest[1], "x y z w", 3.0f, 0.5f, probabilities[1]);
  // The probabilities are float32 values: their sum is 1 to float32's precision.
  EXPECT_NEAR(p.nbest[0].probability + p.nbest[1].probability, 1.0, 1e-7);
  EXPECT_EQ(static_cast<double>(static_cast<float>(p.nbest[0].probability)), p.nbest[0].probability);
}

}  // namespace
}  // namespace shmtrain::task
