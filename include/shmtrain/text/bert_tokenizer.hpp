#pragma once
// BERT's tokenizer end to end, as Hugging Face's BertTokenizerFast with
// add_special_tokens=True, truncation="longest_first", padding="max_length" (run_glue.py):
//   text -> special tokens cut out of the raw text (added_tokens.hpp) -> basic tokenization
//   (basic_tokenizer.hpp) -> WordPiece (wordpiece.hpp) -> ids;
//   a pair becomes [CLS] a [SEP] b [SEP], token_type_ids 0 for [CLS] a [SEP] and 1 for b [SEP].
// Thread-safe: encode() is const; its scratch buffers are per thread (thread_local).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shmtrain/text/added_tokens.hpp"
#include "shmtrain/text/tokenizer.hpp"
#include "shmtrain/text/basic_tokenizer.hpp"
#include "shmtrain/text/tokenizer_files.hpp"
#include "shmtrain/text/vocab.hpp"
#include "shmtrain/text/wordpiece.hpp"

namespace shmtrain::text {

// How many tokens of a pair survive truncation to `budget` (= max_seq_length - 3): HF
// tokenizers' LongestFirst (utils/truncation.rs). With s the shorter and l the longer length:
// when s + l <= budget nothing goes; when only the longer must give, it keeps budget - s;
// when both must, the shorter keeps budget / 2 and the longer budget / 2 + budget % 2 —
// on a tie the second sequence counts as the longer one and keeps the odd token.
// (The slow BertTokenizer drops one token at a time from the longer sequence, from b on a
// tie, which ends with a keeping the odd token instead: for lengths (5, 5) and budget 7 it
// gives (4, 3) where the fast tokenizer, and we, give (3, 4).)
std::pair<std::size_t, std::size_t> longest_first_lengths(std::size_t length_a, std::size_t length_b,
                                                          std::size_t budget);

class BertTokenizer final : public Tokenizer {
 public:
  // Throws InputError naming spec.source when [CLS], [SEP] or [UNK] is not in the
  // vocabulary. A special token missing from the vocabulary but written in a text (such as
  // [MASK] in a vocabulary without it) is kept whole and gets [UNK]'s id, as in HF.
  explicit BertTokenizer(TokenizerSpec spec);

  // load_tokenizer_spec(path) with the user's --do_lower_case applied.
  static BertTokenizer from_path(const std::filesystem::path& path, std::optional<bool> do_lower_case = {});

  // Appends the ids of `text` (no [CLS]/[SEP] added). Throws InputError for invalid UTF-8,
  // "<what>: invalid UTF-8 at byte N ...".
  void tokenize(std::string_view text, std::vector<std::int32_t>& ids, std::string_view what = "text") const override;

  // tokenize() that also appends each id's span of `text` to `offsets`, in code points, as
  // BertTokenizerFast's return_offsets_mapping gives them: a WordPiece piece spans the input
  // characters its normalised characters came from (so "Café" -> "cafe" spans 4 characters,
  // and an accent stripped from "e" + U+0301 is outside the span); [UNK] spans its word; a
  // special token written in the text spans itself.
  void tokenize_with_offsets(std::string_view text, std::vector<std::int32_t>& ids, std::vector<CharSpan>& offsets,
                             std::string_view what = "text") const override;

  // Encodes text_a, or the pair (text_a, text_b), into `out` (its buffers are reused).
  // Throws InputError for invalid UTF-8 (naming text_a or text_b and the byte offset), for
  // max_seq_length below the special tokens' count (2, or 3 for a pair), and for
  // pad_to_max_length without max_seq_length.
  void encode(std::string_view text_a, std::optional<std::string_view> text_b, const EncodeOptions& options,
              Encoding& out) const override;
  Encoding encode(std::string_view text_a, std::optional<std::string_view> text_b = {},
                  const EncodeOptions& options = {}) const;

  // The vocabulary strings of `ids`, for display.
  std::vector<std::string> tokens(const std::vector<std::int32_t>& ids) const override;

  // [CLS] a [SEP] (b [SEP]), token types 0 then 1.
  std::size_t assemble(std::span<const std::int32_t> a, std::optional<std::span<const std::int32_t>> b,
                       Encoding& out) const override;
  std::size_t num_special_tokens(bool pair) const override { return pair ? 3 : 2; }
  void encode_words(const std::vector<std::string>& words, std::size_t max_seq_length, Encoding& out,
                    std::vector<std::int32_t>& word_ids) const override;
  std::size_t vocab_size() const override { return spec_.vocab->size(); }
  const std::string& source() const override { return spec_.source; }
  std::string description() const override;
  // vocab.txt, tokenizer_config.json and special_tokens_map.json (tokenizer_writer.hpp).
  void save(const std::filesystem::path& folder, std::size_t model_max_length) const override;

  const Vocab& vocab() const { return *spec_.vocab; }
  const TokenizerSpec& spec() const { return spec_; }
  std::int32_t cls_id() const { return cls_id_; }
  std::int32_t sep_id() const { return sep_id_; }
  std::int32_t pad_id() const override { return pad_id_; }
  std::int32_t unk_id() const { return unk_id_; }

 private:
  TokenizerSpec spec_;
  std::int32_t cls_id_;
  std::int32_t sep_id_;
  std::int32_t pad_id_;
  std::int32_t unk_id_;
  BasicTokenizer basic_;
  WordPiece wordpiece_;
  AddedTokenMatcher added_;
};

}  // namespace shmtrain::text
