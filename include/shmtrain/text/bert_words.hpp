#pragma once
// BertNormalizer followed by BertPreTokenizer in one pass over the UTF-8 bytes, for the
// encodes that want ids only (no offsets: src/text/pipeline/bert_ids_path.hpp). It gives the
// words those two pipeline steps give (pipeline/normalizers.cpp, pre_tokenizers.cpp) without
// their per-character alignment: ASCII, most of real text, is classified by one table lookup, and the words go back to back
// into one reused buffer. The steps, in tokenizers' terms:
//   1. clean_text: drop U+0000, U+FFFD and control characters (is_bert_control); every
//      whitespace character (is_bert_whitespace) separates words.
//   2. handle_chinese_chars: each CJK ideograph (is_cjk_ideograph) is a word of its own.
//   3. strip accents: NFD, then drop non-spacing marks (Mn), so "café" -> "cafe".
//   4. lower-case (to_lower_full), character by character.
//   5. split punctuation (is_bert_punctuation): each punctuation character is a word.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shmtrain/text/tokenizer_files.hpp"  // NormalizerOptions

// Differences from the slow BertTokenizer (transformers >= 4.3x) that we do not follow: it
// NFC-composes the text first (so "e" + U+0301 meets a cased vocabulary as "é"), and its
// str.lower() writes final sigma (ς) at the end of a word.
namespace shmtrain::text {

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

  void clear() {
    bytes.clear();
    words.clear();
  }
  std::string_view text(const Word& word) const { return {bytes.data() + word.offset, word.size}; }
};

// Appends the words of `text` to `out`. Throws InputError when `text` is not valid UTF-8,
// naming the byte offset within `text`.
void split_bert_words(const NormalizerOptions& options, std::string_view text, WordList& out);
// The words as strings: for tests and tools; the hot path uses the WordList form.
std::vector<std::string> split_bert_words(const NormalizerOptions& options, std::string_view text);

}  // namespace shmtrain::text
