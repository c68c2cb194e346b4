#pragma once
// run_qa.py's postprocess_qa_predictions (utils_qa.py) for SQuAD v1.1: from the start and end
// logits of every window, the answer text of every question.
//   for each window of a question:
//     the n_best_size highest start logits and the n_best_size highest end logits, over all
//     positions (question, special tokens and padding included);
//     each (start, end) pair with both tokens in the window's context, end >= start and
//     end - start + 1 <= max_answer_length is a candidate scored start_logit + end_logit;
//   the question's answer is its best candidate over all its windows (the first one on a tie,
//   in window, start-rank, end-rank order), the context from the start token's first
//   character to the end token's last; "empty" when there is no candidate.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "shmtrain/task/squad/qa_features.hpp"

namespace shmtrain::task {

struct QaPostprocessOptions {
  std::int64_t n_best_size = 20;
  std::int64_t max_answer_length = 30;
};

// logits: (windows, seq, 2), each position's start and end logit, windows in
// text.windows' order. Returns one answer per question of text.file, in its order.
// REQUIRES: logits.size() == text.windows.size() * seq * 2 (else throws Error).
std::vector<std::string> postprocess_qa_predictions(const SquadWindows& text,
                                                    std::span<const float> logits, std::int64_t seq,
                                                    const QaPostprocessOptions& options);

}  // namespace shmtrain::task
