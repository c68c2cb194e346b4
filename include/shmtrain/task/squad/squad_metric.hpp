#pragma once
// SQuAD v1.1's official scores (evaluate-v1.1.py, and Hugging Face evaluate's "squad" metric
// that run_qa.py reports), as percentages:
//   normalize(s) = white_space_fix(remove_articles(remove_punc(lower(s))))
//     lower            Python's str.lower() (full Unicode mapping, final sigma)
//     remove_punc      drop the ASCII punctuation of string.punctuation
//     remove_articles  re.sub(r'\b(a|an|the)\b', ' ', s): a whole word a, an or the -> ' '
//     white_space_fix  ' '.join(s.split()): Unicode whitespace runs -> one space, trimmed
//   exact match = normalize(prediction) == normalize(truth)
//   F1 over the normalised words (multiset overlap): 2 P R / (P + R), 0 without overlap
//   each question scores its best over the gold answers; the totals are 100 x the means.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shmtrain::task {

std::string normalize_squad_answer(std::string_view text);

bool squad_exact_match(std::string_view prediction, std::string_view truth);
double squad_f1(std::string_view prediction, std::string_view truth);

struct SquadScores {
  double exact_match = 0;  // percent
  double f1 = 0;           // percent
};

// predictions[i] against golds[i] (at least one answer each). REQUIRES equal sizes (else
// throws Error); no questions score 0.
SquadScores squad_scores(std::span<const std::string> predictions,
                         std::span<const std::vector<std::string>> golds);

}  // namespace shmtrain::task
