#pragma once
// Internal to text/pipeline: tokenizer.json's "added_tokens" and how tokenizers finds them in
// a text before anything else runs: the tokens with normalized false in the raw text, the
// others in each normalised piece; leftmost-longest; single_word ones only between non-word
// characters; lstrip/rstrip ones swallow the whitespace beside them into their own span.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aligned_text.hpp"
#include "json_fields.hpp"

namespace shmtrain::text::pipeline {

class Normalizer;

struct AddedToken {
  std::int32_t id = 0;
  std::string content;
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = false;
  bool special = false;
};

// A part of a text: either an added token (id >= 0) or text for the model (id -1).
struct TextPart {
  AlignedText text;
  std::int32_t id = -1;
};

class AddedVocabulary {
 public:
  AddedVocabulary() = default;
  // `normalizer` (may be null) normalises the contents of the normalized tokens.
  AddedVocabulary(std::vector<AddedToken> tokens, const Normalizer* normalizer);

  // Splits off the raw-text tokens, normalises the rest with `normalizer` (may be null), then
  // splits off the normalised tokens.
  std::vector<TextPart> split(const AlignedText& raw, const Normalizer* normalizer) const;

  const std::vector<AddedToken>& tokens() const { return tokens_; }
  const AddedToken* find(const std::string& content) const;
  const AddedToken* find(std::int32_t id) const;

 private:
  struct Pattern {
    std::u32string text;
    std::size_t token;  // index into tokens_
  };
  void split_on(const AlignedText& text, const std::vector<Pattern>& patterns, std::vector<TextPart>& out) const;

  std::vector<AddedToken> tokens_;
  std::vector<Pattern> raw_;         // normalized false, longest first
  std::vector<Pattern> normalized_;  // normalized true, their contents normalised, longest first
};

}  // namespace shmtrain::text::pipeline
