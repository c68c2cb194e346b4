// run_qa.py's post-processing on hand-written logits: candidates only inside a window's
// context, end >= start, at most max_answer_length tokens, the n_best_size filter, the best
// over a question's windows, and the answer cut from the context by character offsets.
#include "shmtrain/task/squad/postprocess.hpp"

#include <gtest/gtest.h>

#include "postprocess_windows.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::task {
namespace {

using postprocess_windows::kSeq;
using postprocess_windows::set;

// "q1" over a Unicode context.
SquadWindows two_unicode_questions() {
  return postprocess_windows::two_questions("\U0001F600 caf\u00e9 na\u00efve x", {{0, 1}, {2, 6}, {7, 12}, {13, 14}});
}

TEST(QaPostprocess, BestValidSpanOverAQuestionsWindows) {
  const SquadWindows text = two_unicode_questions();
  std::vector<float> logits(3 * kSeq * 2, -10.0f);
  // Window 0: the highest start is on a question token (position 1): not a candidate.
  // Best valid: start 4 ("bb") + end 5 ("ccc") = 3 + 2 = 5.
  set(logits, 0, 1, 9, 9);
  set(logits, 0, 4, 3, -10);
  set(logits, 0, 5, -10, 2);
  // Window 1 (words 1-4 at positions 3-6): start 4 ("ccc") + end 5 ("dddd") = 4 + 10 = 14
  // beats window 0. Start 6 ("eeeee") with end 5 scores 17 but ends before it starts.
  set(logits, 1, 4, 4, -10);
  set(logits, 1, 5, -10, 10);
  set(logits, 1, 6, 7, 2);
  // Window 2 (q1): "café naïve" from positions 4-5, cut from the original characters.
  set(logits, 2, 4, 5, -10);
  set(logits, 2, 5, -10, 5);
  const std::vector<std::string> answers = postprocess_qa_predictions(text, logits, kSeq, {});
  EXPECT_EQ(answers, (std::vector<std::string>{"ccc dddd", "caf\u00e9 na\u00efve"}));
}

TEST(QaPostprocess, MaxAnswerLengthAndNBestSizeLimitTheCandidates) {
  const SquadWindows text = two_unicode_questions();
  std::vector<float> logits(3 * kSeq * 2, -10.0f);
  set(logits, 2, 3, 5, -10);  // start at the emoji
  set(logits, 2, 6, -10, 5);  // end at "x": 4 tokens
  set(logits, 2, 5, 1, 1);
  EXPECT_EQ(postprocess_qa_predictions(text, logits, kSeq, {.n_best_size = 20, .max_answer_length = 4})[1],
            "\U0001F600 caf\u00e9 na\u00efve x");
  // With at most 3 tokens the best is start 3 + end 5 (5 + 1).
  EXPECT_EQ(postprocess_qa_predictions(text, logits, kSeq, {.n_best_size = 20, .max_answer_length = 3})[1],
            "\U0001F600 caf\u00e9 na\u00efve");
  // n_best_size 1: only the top start (on the emoji) and the top end (on "x") are tried, and
  // together they are too long: no candidate, run_qa's answer "empty".
  EXPECT_EQ(postprocess_qa_predictions(text, logits, kSeq, {.n_best_size = 1, .max_answer_length = 3})[1],
            "empty");
  EXPECT_THROW(postprocess_qa_predictions(text, std::vector<float>(5), kSeq, {}), Error);
}

}  // namespace
}  // namespace shmtrain::task
