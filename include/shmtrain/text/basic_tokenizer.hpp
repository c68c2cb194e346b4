#pragma once
// BERT's basic tokenization: text -> words, before WordPiece. This is Hugging Face's
// BertNormalizer + BertPreTokenizer (tokenizers, used by BertTokenizerFast), which matches
// transformers' BasicTokenizer except where unicode_rules.hpp and the notes below say:
//   1. clean_text: drop U+0000, U+FFFD and control characters (is_bert_control); every
//      whitespace character (is_bert_whitespace) separates words.
//   2. handle_chinese_chars: each CJK ideograph (is_cjk_ideograph) is a word of its own.
//   3. strip accents: NFD, then drop non-spacing marks (Mn), so "café" -> "cafe".
//   4. lower-case (to_lower_full), character by character.
//   5. split punctuation (is_bert_punctuation): each punctuation character is a word of
//      its own, so "don't" -> don ' t and "e-mail" -> e - mail.
// Special tokens written in the text ([MASK], [SEP]) are not this class's business: the
// caller cuts them out of the raw text first (added_tokens.hpp), as HF does.
// Differences from the slow BertTokenizer (transformers >= 4.3x) that we do not follow:
// it NFC-composes the text first (so "e" + U+0301 meets a cased vocabulary as "é"), and its
// str.lower() writes final sigma (ς) at the end of a word.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shmtrain::text {

// The BertNormalizer settings (tokenizer.json "normalizer"; tokenizer_config.json's
// do_lower_case, strip_accents, tokenize_chinese_chars).
struct NormalizerOptions {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  bool lowercase = true;
  std::optional<bool> strip_accents;  // unset: strip exactly when lower-casing, as original BERT

  bool strips_accents() const { return strip_accents.value_or(lowercase); }
};

// A span of the input text in code points (Python str indices, as Hugging Face's
// offset_mapping counts them): [begin, end).
struct CharSpan {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  bool operator==(const CharSpan&) const = default;
};

// Words back to back in one buffer, so that splitting a text allocates per text, not per
// character or word. The buffer is reused across texts by clear().
struct WordList {
  struct Word {
    std::uint32_t offset;  // into bytes
    std::uint32_t size;    // bytes
    std::uint32_t chars;   // code points, for WordPiece's max_input_chars_per_word
  };
  std::string bytes;
  std::vector<Word> words;
  // Filled by split_with_sources only: for each byte of `bytes`, the input character it came
  // from (lower-casing and NFD may turn one character into several; all point back to it).
  std::vector<CharSpan> sources;

  void clear() {
    bytes.clear();
    words.clear();
    sources.clear();
  }
  std::string_view text(const Word& word) const { return {bytes.data() + word.offset, word.size}; }
};

class BasicTokenizer {
 public:
  explicit BasicTokenizer(NormalizerOptions options = {}) : options_(options) {}

  // Appends the words of `text` to `out`. Throws InputError when `text` is not valid UTF-8,
  // naming the byte offset within `text`.
  void split(std::string_view text, WordList& out) const;

  // split() that also records out.sources, in code points of `text`: the alignment of
  // tokenizers' NormalizedString (a character made by NFD or lower-casing maps to the
  // character it came from; removed characters map nowhere).
  void split_with_sources(std::string_view text, WordList& out) const;

  // The words of `text` as strings: for tests and tools; the hot path uses the WordList form.
  std::vector<std::string> split(std::string_view text) const;

  const NormalizerOptions& options() const { return options_; }

 private:
  NormalizerOptions options_;
};

}  // namespace shmtrain::text
