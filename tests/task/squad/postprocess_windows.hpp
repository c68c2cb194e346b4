#pragma once
// The windows the post-processing tests score: two questions, "q0" over "a bb ccc dddd eeeee" in
// two windows (words 0-3 and 1-4), "q1" over a context of four words in one window; each window
// is kSeq tokens, [CLS] q [SEP] c c c c [SEP], its context at positions 3..6.
#include <cstdint>
#include <string>
#include <vector>

#include "shmtrain/task/squad/postprocess.hpp"

namespace shmtrain::task::postprocess_windows {

constexpr std::int64_t kSeq = 8;

inline SquadWindows two_questions(const std::string& second_context, const std::vector<text::CharSpan>& second_words) {
  SquadWindows text;
  text.file.contexts = {"a bb ccc dddd eeeee", second_context};
  text.file.examples = {{"q0", "?", 0, {}}, {"q1", "?", 1, {}}};
  const std::vector<text::CharSpan> words = {{0, 1}, {2, 4}, {5, 8}, {9, 13}, {14, 19}};
  text.windows.push_back({0, 3, {words.begin(), words.begin() + 4}});
  text.windows.push_back({0, 3, {words.begin() + 1, words.end()}});
  text.windows.push_back({1, 3, second_words});
  return text;
}

// Sets one position's start and end logits in logits[window][position][start, end].
inline void set(std::vector<float>& logits, std::int64_t window, std::int64_t position, float start, float end) {
  logits[static_cast<std::size_t>((window * kSeq + position) * 2)] = start;
  logits[static_cast<std::size_t>((window * kSeq + position) * 2 + 1)] = end;
}

}  // namespace shmtrain::task::postprocess_windows
