#pragma once
// run_qa.py's postprocess_qa_predictions (utils_qa.py): from the start and end logits of every
// window, each question's answer and its n-best list, for SQuAD v1.1 and (with
// version_2_with_negative) SQuAD 2.0.
//   for each window of a question:
//     the n_best_size highest start logits and the n_best_size highest end logits, over all
//     positions (question, special tokens and padding included);
//     each (start, end) pair with both tokens in the window's context, end >= start and
//     end - start + 1 <= max_answer_length is a candidate scored start_logit + end_logit;
//     the window's null score is start_logits[0] + end_logits[0] (the [CLS] / <s> position);
//   v2: the null candidate of the window with the lowest null score (the first on a tie)
//     joins the candidates, with text "";
//   the candidates, sorted by score (stable: on a tie in window, start-rank, end-rank order,
//     the null last), the first n_best_size kept; v2: the null appended when it was cut;
//   texts cut from the context, from the start token's first character to the end token's last;
//   no candidate, or only the null: an "empty" candidate (logits 0) goes first;
//   probability: softmax over the kept scores (float32 like NumPy's; float64 when "empty" is
//     among them, as NumPy promotes the Python float 0.0);
//   v1: the answer is the first candidate's text;
//   v2: with best = the first candidate whose text is not "",
//     score_diff = null_score - best.start_logit - best.end_logit (float32), and the answer is
//     "" when score_diff > null_score_diff_threshold, else best's text.
// Scores and logits are float32 as in PyTorch's outputs; the softmax's exp is the C library's
// expf, so a probability may differ from NumPy's vectorised exp in its last bits.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shmtrain/task/squad/qa_features.hpp"

namespace shmtrain::task {

struct QaPostprocessOptions {
  std::int64_t n_best_size = 20;
  std::int64_t max_answer_length = 30;
  bool version_2_with_negative = false;
  double null_score_diff_threshold = 0.0;
};

// One entry of a question's n-best list (utils_qa's dict after it drops "offsets" and "score").
struct QaCandidate {
  std::string text;
  float start_logit = 0;
  float end_logit = 0;
  double probability = 0;    // the float32 (or float64) softmax value, widened
  bool placeholder = false;  // utils_qa's "empty" entry, whose keys come text first
};

struct QaPrediction {
  std::string answer;
  std::vector<QaCandidate> nbest;  // best first
  // v2: null score minus the best non-null candidate's logits (eval_null_odds.json); unset in
  // v1, and for a question none of whose windows was kept (max_eval_samples), which has no
  // null score (utils_qa fails there; here the answer is "empty").
  std::optional<double> score_diff;
};

// logits: (windows, seq, 2), each position's start and end logit, windows in
// text.windows' order. Returns one prediction per question of text.file, in its order.
// REQUIRES: logits.size() == text.windows.size() * seq * 2 (else throws Error).
std::vector<QaPrediction> postprocess_qa(const SquadWindows& text, std::span<const float> logits,
                                         std::int64_t seq, const QaPostprocessOptions& options);

// The answers alone (postprocess_qa(...)[i].answer).
std::vector<std::string> postprocess_qa_predictions(const SquadWindows& text, std::span<const float> logits,
                                                    std::int64_t seq, const QaPostprocessOptions& options);

}  // namespace shmtrain::task
