#include "sequence_tokens.hpp"

namespace shmtrain::text::pipeline {

void SequenceTokens::truncate(std::size_t n) {
  if (n >= ids.size()) return;
  ids.resize(n);
  tokens.resize(n);
  offsets.resize(n);
  word_ids.resize(n);
  type_ids.resize(n);
  special.resize(n);
  sequence.resize(n);
}

void SequenceTokens::truncate_front(std::size_t n) {
  if (n >= ids.size()) return;
  const auto drop = static_cast<std::ptrdiff_t>(ids.size() - n);
  ids.erase(ids.begin(), ids.begin() + drop);
  tokens.erase(tokens.begin(), tokens.begin() + drop);
  offsets.erase(offsets.begin(), offsets.begin() + drop);
  word_ids.erase(word_ids.begin(), word_ids.begin() + drop);
  type_ids.erase(type_ids.begin(), type_ids.begin() + drop);
  special.erase(special.begin(), special.begin() + drop);
  sequence.erase(sequence.begin(), sequence.begin() + drop);
}

void SequenceTokens::append(const SequenceTokens& other, std::size_t from) {
  const auto at = static_cast<std::ptrdiff_t>(from);
  ids.insert(ids.end(), other.ids.begin() + at, other.ids.end());
  tokens.insert(tokens.end(), other.tokens.begin() + at, other.tokens.end());
  offsets.insert(offsets.end(), other.offsets.begin() + at, other.offsets.end());
  word_ids.insert(word_ids.end(), other.word_ids.begin() + at, other.word_ids.end());
  type_ids.insert(type_ids.end(), other.type_ids.begin() + at, other.type_ids.end());
  special.insert(special.end(), other.special.begin() + at, other.special.end());
  sequence.insert(sequence.end(), other.sequence.begin() + at, other.sequence.end());
}

void SequenceTokens::append_special(std::int32_t id, std::int32_t type_id, const std::string& token) {
  ids.push_back(id);
  tokens.push_back(token);
  offsets.push_back({0, 0});
  word_ids.push_back(-1);
  type_ids.push_back(type_id);
  special.push_back(1);
  sequence.push_back(-1);
}

}  // namespace shmtrain::text::pipeline
