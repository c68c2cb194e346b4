#pragma once
// Internal to text/pipeline: the tokens of one sequence or of a finished encoding, as
// parallel arrays (tokenizers' Encoding).
#include <cstdint>
#include <string>
#include <vector>

#include "shmtrain/text/char_span.hpp"

namespace shmtrain::text::pipeline {

struct SequenceTokens {
  std::vector<std::int32_t> ids;
  std::vector<std::string> tokens;     // tokenizers' Encoding.tokens
  std::vector<CharSpan> offsets;       // in the text's characters; (0, 0) for special tokens
  std::vector<std::int32_t> word_ids;  // -1 for special tokens
  std::vector<std::int32_t> type_ids;
  std::vector<std::uint8_t> special;   // 1 for tokens the post-processor added
  std::vector<std::int32_t> sequence;  // 0 for a's tokens, 1 for b's, -1 for special tokens

  std::size_t size() const { return ids.size(); }
  void truncate(std::size_t n);
  void truncate_front(std::size_t n);  // keeps the last n
  void append(const SequenceTokens& other, std::size_t from = 0);
  void append_special(std::int32_t id, std::int32_t type_id, const std::string& token);
};

}  // namespace shmtrain::text::pipeline
