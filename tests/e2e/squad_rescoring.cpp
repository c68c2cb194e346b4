#include "squad_rescoring.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace shmtrain::testing {

std::vector<std::string> squad_words(const std::string& text) {
  std::string kept;
  for (const char c : text) {
    if (std::ispunct(static_cast<unsigned char>(c))) continue;
    kept += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  std::istringstream in(kept);
  std::vector<std::string> words;
  for (std::string w; in >> w;) {
    if (w != "a" && w != "an" && w != "the") words.push_back(w);
  }
  return words;
}

double squad_f1(const std::string& prediction, const std::string& truth) {
  const std::vector<std::string> p = squad_words(prediction);
  std::vector<std::string> t = squad_words(truth);
  if (p.empty() || t.empty()) return p.empty() && t.empty() ? 1.0 : 0.0;
  const double gold_words = static_cast<double>(t.size());
  int same = 0;
  for (const std::string& w : p) {
    const auto it = std::find(t.begin(), t.end(), w);
    if (it != t.end()) {
      t.erase(it);
      ++same;
    }
  }
  if (same == 0) return 0;
  const double precision = same / static_cast<double>(p.size());
  const double recall = same / gold_words;
  return 2 * precision * recall / (precision + recall);
}

}  // namespace shmtrain::testing
