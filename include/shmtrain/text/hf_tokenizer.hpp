#pragma once
// Any tokenizer a Hugging Face model folder ships, with Hugging Face tokenizers' semantics:
// a tokenizer.json (normalizer -> pre-tokenizer -> model -> post-processor, with added tokens
// found in the raw text first), or the older files transformers converts the same way:
// vocab.json + merges.txt (RobertaTokenizer) and sentencepiece.bpe.model
// (XLMRobertaTokenizer, fairseq's ids). The components are in src/text/pipeline/.
// Thread-safe: encode() is const.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shmtrain/text/char_span.hpp"
#include "shmtrain/text/tokenizer.hpp"

namespace shmtrain::text {

enum class TruncationStrategy { kLongestFirst, kOnlyFirst, kOnlySecond };

struct Truncation {
  std::size_t max_length = 0;  // 0: none; counts the special tokens
  TruncationStrategy strategy = TruncationStrategy::kLongestFirst;
  bool from_left = false;  // truncation_side "left": drop a sequence's first tokens
};

// How many tokens of a pair survive truncation to `budget` (max_length less the special
// tokens): HF tokenizers' LongestFirst (utils/truncation.rs). With s the shorter and l the
// longer length: when s + l <= budget nothing goes; when only the longer must give, it keeps
// budget - s; when both must, the shorter keeps budget / 2 and the longer budget / 2 +
// budget % 2 — on a tie the second sequence counts as the longer one and keeps the odd token.
// (The slow BertTokenizer drops one token at a time from the longer sequence, from b on a
// tie, which ends with a keeping the odd token instead: for lengths (5, 5) and budget 7 it
// gives (4, 3) where the fast tokenizer, and we, give (3, 4).)
std::pair<std::size_t, std::size_t> longest_first_lengths(std::size_t length_a, std::size_t length_b,
                                                          std::size_t budget);

// One encoded input, as tokenizers' Encoding: every array has one entry per token.
struct TokenizedText {
  std::vector<std::int32_t> ids;
  std::vector<std::string> tokens;     // as tokenizers names them (an unknown Unigram run by its text)
  std::vector<CharSpan> offsets;       // code points of the input text (of its word, for pre-split input)
  std::vector<std::int32_t> word_ids;  // -1 for special tokens
  std::vector<std::int32_t> type_ids;
  std::vector<std::uint8_t> special_tokens_mask;
  std::vector<std::int32_t> sequence_ids;  // 0 first text, 1 second, -1 special tokens

  std::size_t size() const { return ids.size(); }
};

class HfTokenizer final : public Tokenizer {
 public:
  // `path`: a tokenizer.json, or a folder holding tokenizer.json, vocab.json + merges.txt or
  // sentencepiece.bpe.model (first found wins; tokenizer_config.json and
  // special_tokens_map.json name the pad token and RoBERTa's add_prefix_space). Throws
  // InputError naming the file and key for anything it cannot read.
  // `add_prefix_space`: force ByteLevel's add_prefix_space on (pre-tokenizer and
  // post-processor), as RobertaTokenizerFast(add_prefix_space=True) does for pre-split words.
  // A folder with none of those but a vocab.txt, or a vocab.txt, is BERT's (load_bert).
  static HfTokenizer load(const std::filesystem::path& path, bool add_prefix_space = false);
  // BERT's vocab.txt or WordPiece tokenizer.json (a file, or a folder holding one and maybe
  // tokenizer_config.json), its settings resolved as tokenizer_files.hpp says with the user's
  // --do_lower_case over them, built as transformers' BertConverter builds a vocab.txt:
  // BertNormalizer + BertPreTokenizer + WordPiece + [CLS] $A [SEP] $B:1 [SEP]:1. save() writes
  // vocab.txt, tokenizer_config.json and special_tokens_map.json (tokenizer_writer.hpp).
  static HfTokenizer load_bert(const std::filesystem::path& path, std::optional<bool> do_lower_case = {});

  HfTokenizer(HfTokenizer&&) noexcept;
  HfTokenizer& operator=(HfTokenizer&&) noexcept;
  ~HfTokenizer();

  // Throws InputError "<what>: invalid UTF-8 ..." for bad text, and for a truncation that
  // cannot be met (max_length below the special tokens, only_second without a pair, ...).
  TokenizedText encode_text(std::string_view text, std::optional<std::string_view> pair = {},
                            bool add_special_tokens = true, const Truncation& truncation = {}) const;
  // is_split_into_words: each word is tokenized on its own and its tokens carry its index.
  TokenizedText encode_words(const std::vector<std::string>& words, const std::vector<std::string>* pair_words = nullptr,
                             bool add_special_tokens = true, const Truncation& truncation = {}) const;
  // Adds the special tokens around already-tokenized sequences (tokens from encode() with
  // add_special_tokens false), as the post-processor does.
  TokenizedText post_process(TokenizedText a, TokenizedText* b) const;
  std::size_t num_special_tokens(bool pair) const override;

  // The token of `id` ("" for an unknown id).
  const std::string& token(std::int32_t id) const;
  std::optional<std::int32_t> token_id(std::string_view token) const;
  std::size_t vocab_size() const override;  // the model's vocabulary and the added tokens
  // tokenizer.json's padding.pad_id, else tokenizer_config.json's pad_token, else <pad> or
  // [PAD]; -1 when there is none.
  std::int32_t pad_id() const override;
  std::int32_t mask_id() const override;  // mlm_tokens.cpp
  std::vector<std::int32_t> special_ids() const override;
  // The file read, and what it is ("tokenizer.json (model BPE, ...)"), for messages.
  const std::string& source() const override;
  std::string description() const override;

  // The Tokenizer interface (tokenizer.hpp) on top of encode_text().
  using Tokenizer::encode;
  void tokenize(std::string_view text, std::vector<std::int32_t>& ids, std::string_view what) const override;
  void tokenize_with_offsets(std::string_view text, std::vector<std::int32_t>& ids, std::vector<CharSpan>& offsets,
                             std::string_view what) const override;
  void encode(std::string_view text_a, std::optional<std::string_view> text_b, const EncodeOptions& options,
              Encoding& out) const override;
  std::size_t assemble(std::span<const std::int32_t> a, std::optional<std::span<const std::int32_t>> b,
                       Encoding& out) const override;
  void encode_words(const std::vector<std::string>& words, std::size_t max_seq_length, Encoding& out,
                    std::vector<std::int32_t>& word_ids) const override;
  std::vector<std::string> tokens(const std::vector<std::int32_t>& ids) const override;
  // Copies the files it was read from (tokenizer.json, tokenizer_config.json, ...); a
  // load_bert() tokenizer writes its vocab.txt and settings instead.
  void save(const std::filesystem::path& folder, std::size_t model_max_length) const override;
  // The files of the folder that make this tokenizer, to copy beside a trained model.
  const std::vector<std::filesystem::path>& files() const;

  struct Impl;

 private:
  explicit HfTokenizer(std::unique_ptr<Impl> impl);
  // encode() through the steps one by one (kept for a slow tokenizer's truncation), or ids only
  // (pipeline::tokenize_ids, the post-processor's IdsLayout).
  void encode_steps(std::string_view text_a, std::optional<std::string_view> text_b, std::size_t max_length,
                    Encoding& out) const;
  void encode_ids(std::string_view text_a, std::optional<std::string_view> text_b, std::size_t max_length,
                  Encoding& out) const;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shmtrain::text
