#pragma once
// SQuAD 2.0's official scores (evaluate-v2.0.py, which Hugging Face evaluate's "squad_v2" metric
// wraps and run_qa.py --version_2_with_negative reports), as percentages:
//   gold answers: those that normalise to something (squad_metric.hpp's normalisation); none
//     left (an unanswerable question): [""]
//   exact = normalize(prediction) == normalize(gold); F1 as SQuAD v1.1's, except that when
//     either side normalises to no word it is 1 if both do, else 0; the best over the golds
//   a question has an answer when its gold list is not empty (before normalising)
//   no-answer threshold: a question whose no-answer probability exceeds na_prob_thresh scores
//     1 when it has no answer, else 0 (run_qa passes probability 0 and evaluate's threshold is
//     1.0: never)
//   exact, f1, total over all questions; HasAns_* and NoAns_* over those with and without an
//     answer, when there are any
//   best_exact / best_f1: the questions in order of no-answer probability (stable), the best
//     running score of "answer the first k, abstain on the rest", starting from k = 0 (the
//     number of unanswerable questions), as a percentage of all questions; *_thresh: the
//     probability where it was reached (0.0 when never improved upon).
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shmtrain::task {

// SQuAD 2.0's F1 of one pair (compute_f1 of evaluate-v2.0.py).
double squad_v2_f1(std::string_view prediction, std::string_view truth);

struct SquadV2Part {
  double exact = 0;  // percent
  double f1 = 0;     // percent
  std::size_t total = 0;
};

struct SquadV2Scores {
  SquadV2Part all;
  std::optional<SquadV2Part> has_ans;  // set when some question has an answer
  std::optional<SquadV2Part> no_ans;   // set when some question has none
  double best_exact = 0;
  double best_exact_thresh = 0;
  double best_f1 = 0;
  double best_f1_thresh = 0;
};

// predictions[i] against golds[i] (empty: unanswerable). na_probs[i]: question i's no-answer
// probability, float32 as evaluate stores it; empty: 0 for every question. REQUIRES equal
// sizes (else throws Error); no questions score 0.
SquadV2Scores squad_v2_scores(std::span<const std::string> predictions,
                              std::span<const std::vector<std::string>> golds,
                              std::span<const float> na_probs = {}, double na_prob_thresh = 1.0);

// The scores under evaluate's names, in its order: exact, f1, total, HasAns_exact, HasAns_f1,
// HasAns_total, NoAns_exact, NoAns_f1, NoAns_total (each group when present), best_exact,
// best_exact_thresh, best_f1, best_f1_thresh.
std::vector<std::pair<std::string, double>> squad_v2_named(const SquadV2Scores& scores);

}  // namespace shmtrain::task
