#pragma once
// Internal to text/pipeline: a string being normalised and split, one code point per element,
// each carrying the span of the original text it came from (tokenizers' NormalizedString).
// Offsets in the original are code points, as Hugging Face's Python tokenizers report them.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shmtrain/text/char_span.hpp"

namespace shmtrain::text::pipeline {

struct AlignedText {
  std::u32string chars;
  std::vector<CharSpan> spans;  // spans[i]: the original characters chars[i] came from

  std::size_t size() const { return chars.size(); }
  bool empty() const { return chars.empty(); }
  void push(char32_t c, CharSpan span) {
    chars.push_back(c);
    spans.push_back(span);
  }
  // chars[begin, end) with their spans.
  AlignedText slice(std::size_t begin, std::size_t end) const;
  // The original span of chars[begin, end) (REQUIRES begin < end <= size()).
  CharSpan original(std::size_t begin, std::size_t end) const;
  std::string utf8() const;
  std::string utf8(std::size_t begin, std::size_t end) const;
};

// `text` (valid UTF-8) as an AlignedText whose i-th character spans [first + i, first + i + 1).
AlignedText aligned_from_utf8(std::string_view text, std::uint32_t first = 0);

// Unicode's White_Space property (Rust's char::is_whitespace, Python's str.isspace less
// \x1c-\x1f): what Strip, WhitespaceSplit and added tokens' lstrip/rstrip test.
bool is_unicode_whitespace(char32_t c);
// \w of Rust's regex crate (alphabetic, marks, decimal digits, connector punctuation, Join_Control):
// Whitespace's and single_word's word characters.
bool is_word_char(char32_t c);
// Unicode's P* categories (tokenizers' is_punctuation in the Punctuation pre-tokenizer).
bool is_unicode_punctuation(char32_t c);
// Unicode's Nd/Nl/No: char::is_numeric, the Digits pre-tokenizer's test.
bool is_numeric(char32_t c);

}  // namespace shmtrain::text::pipeline
