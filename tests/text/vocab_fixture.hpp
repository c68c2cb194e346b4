#pragma once
// Small BERT-style vocabularies for the text tests: the five special tokens first (ids 0-4,
// [PAD] = 0 as in BERT), then whole words and "##" word-inner pieces. Tests name expected
// tokens as strings and look ids up, so adding a token here breaks nothing.
#include <filesystem>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace shmtrain::testing {

inline const std::vector<std::string>& uncased_vocab() {
  static const std::vector<std::string> tokens = {
      "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
      "the", "a", "b", "c", "d", "e", "v", "w", "x", "y", "z",
      "cafe", "naive", "creme", "brulee", "bru", "##lee", "##e",
      "un", "##aff", "##able",
      "state", "of", "art", "don", "t", "bert", "used", "cat", "##s", "sat", "on", "mat", "mask",
      "hello", "world", "que", "bon", "##jour", "istanbul", "zero", "##width", "soft", "##hyphen",
      ",", ".", "!", "?", "'", "-", "$", "^", "`", "|", "[", "]", "«", "»", "—", "¿",
      "每", "个", "字", "模", "型", "很", "好",
  };
  return tokens;
}

// Cased: holds "The", "Café" ..., so it is detected as cased.
inline const std::vector<std::string>& cased_vocab() {
  static const std::vector<std::string> tokens = {
      "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
      "The", "the", "Café", "café", "Cafe", "cafe", "naïve", "naive", "Crème", "br", "##û", "##lée",
      "brûlée", "un", "##aff", "##able", "Paris", "##is", "Pa", ",", ".", "!", "?",
  };
  return tokens;
}

inline std::string vocab_file_text(const std::vector<std::string>& tokens, const char* newline = "\n") {
  std::string text;
  for (const std::string& token : tokens) text += token + newline;
  return text;
}

// Writes tokens as DIR/vocab.txt and returns DIR.
inline std::filesystem::path write_vocab_folder(const TempDir& dir, const std::vector<std::string>& tokens) {
  write_file(dir / "vocab.txt", vocab_file_text(tokens));
  return dir.path();
}

}  // namespace shmtrain::testing
