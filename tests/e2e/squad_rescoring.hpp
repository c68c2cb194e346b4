#pragma once
// SQuAD's scorer written again for the e2e tests' ASCII data, to rescore a run's predictions
// independently of task/squad's metric: lower-case, drop ASCII punctuation and the words
// a/an/the, split on spaces.
#include <string>
#include <vector>

namespace shmtrain::testing {

std::vector<std::string> squad_words(const std::string& text);

// evaluate-v2.0.py's compute_f1 (v1.1's where the gold answer has words): 1 when both sides have
// no words, 0 when one has none.
double squad_f1(const std::string& prediction, const std::string& truth);

}  // namespace shmtrain::testing
