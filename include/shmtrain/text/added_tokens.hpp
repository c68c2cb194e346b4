#pragma once
// Special tokens written in the raw text ("[CLS] a [SEP] b", "the [MASK] sat") are found
// before any normalisation and kept whole, with their own id, exactly as written: "[mask]"
// is not [MASK]. Matching is leftmost-longest, as tokenizers' AddedVocabulary
// (aho-corasick, MatchKind::LeftmostLongest) and transformers' Trie.split do.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shmtrain::text {

class AddedTokenMatcher {
 public:
  struct Token {
    std::string text;
    std::int32_t id;
  };
  struct Match {
    std::size_t begin;  // byte offset in the text
    std::size_t size;   // bytes
    std::int32_t id;
  };

  // Empty token texts are ignored; for a text listed twice the first entry counts.
  explicit AddedTokenMatcher(std::vector<Token> tokens);

  // The first match starting at or after byte `from`, or std::nullopt.
  std::optional<Match> find(std::string_view text, std::size_t from) const;

  bool empty() const { return tokens_.empty(); }

 private:
  std::vector<Token> tokens_;              // longest first, so the first hit at a position is the longest
  std::array<bool, 256> starts_with_{};  // first bytes of the tokens, to skip ahead cheaply
};

}  // namespace shmtrain::text
