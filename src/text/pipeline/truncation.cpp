// Truncation of one sequence or a pair to the room the special tokens leave, as tokenizers'
// utils/truncation.rs truncate_encodings does (without overflowing windows).
#include <algorithm>

#include "pipeline.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::text {
namespace pipeline {
namespace {

void cut(SequenceTokens& s, std::size_t keep, bool from_left) {
  if (from_left) s.truncate_front(keep);
  else s.truncate(keep);
}

}  // namespace

// transformers' Python truncate_sequences (the slow tokenizers'): one token at a time from the
// longer text, from the second on a tie, so the first keeps the odd token (tokenizers' gives it
// to the longer text).
std::pair<std::size_t, std::size_t> slow_pair_lengths(std::size_t a, std::size_t b, std::size_t budget) {
  while (a + b > budget) {
    if (a > b) --a;
    else --b;
  }
  return {a, b};
}

void truncate_pair(SequenceTokens& a, SequenceTokens* b, std::size_t budget, const Truncation& truncation,
                   bool slow_truncation) {
  const std::size_t total = a.size() + (b != nullptr ? b->size() : 0);
  if (total <= budget) return;
  if (b == nullptr) {
    if (truncation.strategy == TruncationStrategy::kOnlySecond) {
      if (slow_truncation) return;  // transformers' Python code leaves a single text as it is
      fail_input("truncation only_second needs a pair of texts");
    }
    if (slow_truncation && budget == 0) {  // transformers' Python code refuses to cut a text to nothing
      fail_input("truncation to max_length {} would leave none of the text's {} tokens beside the special tokens",
                 truncation.max_length, a.size());
    }
    cut(a, budget, truncation.from_left);
    return;
  }
  switch (truncation.strategy) {
    case TruncationStrategy::kLongestFirst: {
      const auto [keep_a, keep_b] = slow_truncation ? slow_pair_lengths(a.size(), b->size(), budget)
                                                       : longest_first_lengths(a.size(), b->size(), budget);
      cut(a, keep_a, truncation.from_left);
      cut(*b, keep_b, truncation.from_left);
      return;
    }
    case TruncationStrategy::kOnlyFirst:
      if (b->size() >= budget) {
        fail_input("truncation only_first cannot fit max_length {}: the second text alone has {} tokens",
                   truncation.max_length, b->size());
      }
      cut(a, budget - b->size(), truncation.from_left);
      return;
    case TruncationStrategy::kOnlySecond:
      if (a.size() >= budget) {
        fail_input("truncation only_second cannot fit max_length {}: the first text alone has {} tokens",
                   truncation.max_length, a.size());
      }
      cut(*b, budget - a.size(), truncation.from_left);
      return;
  }
}

}  // namespace pipeline

std::pair<std::size_t, std::size_t> longest_first_lengths(std::size_t length_a, std::size_t length_b,
                                                          std::size_t budget) {
  if (length_a + length_b <= budget) return {length_a, length_b};
  const bool a_is_longer = length_a > length_b;
  std::size_t shorter = a_is_longer ? length_b : length_a;
  std::size_t longer = shorter > budget ? shorter : std::max(shorter, budget - shorter);
  if (shorter + longer > budget) {
    shorter = budget / 2;
    longer = shorter + budget % 2;
  }
  return a_is_longer ? std::pair{longer, shorter} : std::pair{shorter, longer};
}

}  // namespace shmtrain::text
