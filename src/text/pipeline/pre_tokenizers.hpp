#pragma once
// Internal to text/pipeline: tokenizer.json's "pre_tokenizer", as Hugging Face tokenizers
// splits: ByteLevel, BertPreTokenizer, Whitespace, WhitespaceSplit, Metaspace, Punctuation,
// Digits, Split, CharDelimiterSplit and Sequence. A pre-tokenizer turns each piece of the
// text into smaller pieces (and ByteLevel and Metaspace also rewrite characters); the model
// then tokenizes every piece on its own.
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "aligned_text.hpp"
#include "json_fields.hpp"

namespace shmtrain::text::pipeline {

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Replaces every piece by its parts, in order.
  virtual void split(std::vector<AlignedText>& pieces) const = 0;
  // Whether this is BertPreTokenizer, which the ids-only path of BERT's pipeline folds into
  // its one pass (bert_words.hpp).
  virtual bool is_bert() const { return false; }
};

std::unique_ptr<PreTokenizer> read_pre_tokenizer(const JsonFields& fields);
// ByteLevel's (byte_level.cpp).
std::unique_ptr<PreTokenizer> make_byte_level(const JsonFields& fields);

// tokenizers' SplitDelimiterBehavior.
enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

// The Punctuation pre-tokenizer's test (BERT's too): ASCII punctuation and symbols, or Unicode's P*.
bool is_any_punctuation(char32_t c);

// Splits `text` at `matches` (sorted, disjoint [begin, end) ranges) as `behavior` says and
// appends the non-empty parts to `out`.
void split_at(const AlignedText& text, const std::vector<std::pair<std::size_t, std::size_t>>& matches,
              SplitBehavior behavior, bool invert, std::vector<AlignedText>& out);
// The matches of a character test: every character for which `test` holds, one match each.
std::vector<std::pair<std::size_t, std::size_t>> char_matches(const AlignedText& text,
                                                              const std::function<bool(char32_t)>& test);

// The matches of GPT-2's pattern (ByteLevel's) in `text` appended to `out`, as PCRE2 finds
// them, when `text` is all ASCII; false (and `out` untouched) otherwise.
bool gpt2_matches_ascii(const std::u32string& text, std::vector<std::pair<std::size_t, std::size_t>>& out);

// GPT-2's byte-to-character alphabet: the printable Latin-1 bytes stand for themselves, the
// others for U+0100 onwards in order (so a space is 'Ġ' U+0120).
char32_t byte_to_char(unsigned char byte);
// The byte a character of that alphabet stands for, or -1.
int char_to_byte(char32_t c);

}  // namespace shmtrain::text::pipeline
