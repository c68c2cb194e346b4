#pragma once
// A WordPiece vocabulary: token <-> id, with the lookups the greedy longest-match needs.
// Tokens live in one arena; the hash maps key string_views into it, so a lookup of a piece of
// a word allocates nothing. The longest match walks a byte trie, so its cost is the length of
// the match, not the square of the longest token (which a crafted vocabulary makes large).
// A Vocab is immutable once built and shared by const pointer.
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
  // Longer tokens are refused by the readers: real vocabularies stay under 100 bytes, and the
  // bound keeps the longest-match search linear in the text for any vocabulary.
  static constexpr std::size_t kMaxTokenBytes = 1024;
  // Ids at or above this are refused, as config.json's vocab_size above it is (4M; XLM-R has
  // 250,002 tokens).
  static constexpr std::size_t kMaxTokens = std::size_t{1} << 22;

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

  // Id of continuing_subword_prefix() + piece (a piece inside a word), or kNotFound. With an
  // empty prefix that is find(piece), as tokenizers' WordPiece looks up "" + piece.
  std::int32_t find_continuation(std::string_view piece) const;

  // The longest token (continuation: the longest continuation piece) that `text` starts with,
  // ending on a character boundary: its id and its length in bytes, or {kNotFound, 0}.
  struct Match {
    std::int32_t id;
    std::size_t bytes;
  };
  Match longest_match(std::string_view text, bool continuation) const;

  const std::string& continuing_subword_prefix() const { return prefix_; }

 private:
  std::vector<char> arena_;             // all tokens back to back
  std::vector<std::uint32_t> offsets_;  // token i is arena_[offsets_[i], offsets_[i + 1])
  std::unordered_map<std::string_view, std::int32_t> ids_;
  std::unordered_map<std::string_view, std::int32_t> continuation_ids_;  // keys without the prefix
  // Byte trie over the tokens (from node 0) and the continuation pieces (from node 1): edge
  // (node << 8 | byte) -> child; node_ids_[node] is the token ending there or kNotFound.
  std::unordered_map<std::uint64_t, std::uint32_t> edges_;
  std::vector<std::int32_t> node_ids_;
  void insert_trie(std::uint32_t root, std::string_view text, std::int32_t id);
  std::string prefix_;
};

// Reads vocab.txt: one token per line, id = line number from 0. Lines end with \n, \r\n or
// \r (HF opens the file in Python's universal-newline mode). Throws InputError naming the
// file when it is missing or unreadable, empty, or not UTF-8 (with line and byte), and the
// line when a token is longer than kMaxTokenBytes or holds a NUL byte.
std::vector<std::string> read_vocab_txt(const std::filesystem::path& path);

// The first token that shows the vocabulary is cased: a token holding a character that
// lower-casing changes, not counting bracketed special tokens such as [CLS] or [unused1].
// std::nullopt for an uncased (lower-case only) vocabulary.
std::optional<std::string> find_cased_token(const Vocab& vocab);

}  // namespace shmtrain::text
