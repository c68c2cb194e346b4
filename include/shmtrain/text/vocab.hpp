#pragma once
// A WordPiece vocabulary: token <-> id, with the lookups the greedy longest-match needs.
// Tokens live in one arena; the hash maps key string_views into it, so a lookup of a piece of
// a word allocates nothing. A Vocab is immutable once built and shared by const pointer.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace shmtrain::text {

class Vocab {
 public:
  static constexpr std::int32_t kNotFound = -1;

  // tokens[i] is the token with id i. A token listed twice is found under its last id, as
  // in HF's load_vocab (a dict filled line by line). Empty strings (blank lines, holes in a
  // tokenizer.json id range) keep their id but are never found: no word is empty.
  // `continuing_subword_prefix` marks word-inner pieces ("##" in BERT).
  explicit Vocab(const std::vector<std::string>& tokens, std::string continuing_subword_prefix = "##");

  // Move-only: the maps point into arena_, whose buffer a move keeps and a copy would not.
  Vocab(Vocab&&) = default;
  Vocab& operator=(Vocab&&) = default;
  Vocab(const Vocab&) = delete;
  Vocab& operator=(const Vocab&) = delete;

  std::size_t size() const { return offsets_.size() - 1; }

  // REQUIRES: 0 <= id < size().
  std::string_view token(std::int32_t id) const;

  // Id of `token`, or kNotFound.
  std::int32_t find(std::string_view token) const;

  // Id of continuing_subword_prefix() + piece (a piece inside a word), or kNotFound.
  std::int32_t find_continuation(std::string_view piece) const;

  // Byte lengths of the longest token and of the longest continuation piece (prefix not
  // counted): no longer piece of a word can match, so the greedy search starts there.
  std::size_t longest_token_bytes() const { return longest_token_bytes_; }
  std::size_t longest_continuation_bytes() const { return longest_continuation_bytes_; }

  const std::string& continuing_subword_prefix() const { return prefix_; }

 private:
  std::vector<char> arena_;  // all tokens back to back
  std::vector<std::uint32_t> offsets_;  // token i is arena_[offsets_[i], offsets_[i + 1])
  std::unordered_map<std::string_view, std::int32_t> ids_;
  std::unordered_map<std::string_view, std::int32_t> continuation_ids_;  // keys without the prefix
  std::string prefix_;
  std::size_t longest_token_bytes_ = 0;
  std::size_t longest_continuation_bytes_ = 0;
};

// Reads vocab.txt: one token per line, id = line number from 0. Lines end with \n, \r\n or
// \r (HF opens the file in Python's universal-newline mode). Throws InputError naming the
// file when it is missing or unreadable, empty, or not UTF-8 (with line and byte).
std::vector<std::string> read_vocab_txt(const std::filesystem::path& path);

// The first token that shows the vocabulary is cased: a token holding a character that
// lower-casing changes, not counting bracketed special tokens such as [CLS] or [unused1].
// std::nullopt for an uncased (lower-case only) vocabulary.
std::optional<std::string> find_cased_token(const Vocab& vocab);

}  // namespace shmtrain::text
