#pragma once
// What the tasks need of a tokenizer, whichever kind the model folder has: a tokenizer.json,
// vocab.json + merges.txt, sentencepiece.bpe.model or BERT's vocab.txt, all read into one
// pipeline (hf_tokenizer.hpp).
// Implementations are thread-safe: every method is const.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shmtrain/text/char_span.hpp"

namespace shmtrain::text {

// One encoded example; all three arrays have the same length.
struct Encoding {
  std::vector<std::int32_t> input_ids;
  std::vector<std::int32_t> token_type_ids;
  std::vector<std::int32_t> attention_mask;  // 1 for tokens, 0 for padding

  std::size_t size() const { return input_ids.size(); }
};

struct EncodeOptions {
  std::size_t max_seq_length = 0;  // 0: no truncation
  bool pad_to_max_length = false;  // REQUIRES max_seq_length > 0
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  // Appends the ids of `text`, no special tokens added. Throws InputError "<what>: ..." for
  // invalid UTF-8.
  virtual void tokenize(std::string_view text, std::vector<std::int32_t>& ids, std::string_view what) const = 0;
  // tokenize() that also appends each id's span of `text` in code points (what question
  // answering maps answers through), as Hugging Face's offsets_mapping gives it.
  virtual void tokenize_with_offsets(std::string_view text, std::vector<std::int32_t>& ids,
                                     std::vector<CharSpan>& offsets, std::string_view what) const = 0;
  // text_a (and text_b) with the special tokens, truncated longest_first to max_seq_length as
  // run_glue.py's tokenizer(..., truncation=True) does.
  virtual void encode(std::string_view text_a, std::optional<std::string_view> text_b, const EncodeOptions& options,
                      Encoding& out) const = 0;
  Encoding encode(std::string_view text_a, std::optional<std::string_view> text_b = {},
                  const EncodeOptions& options = {}) const {
    Encoding out;
    encode(text_a, text_b, options, out);
    return out;
  }
  // The model input made of already-tokenized ids: the special tokens and token types the
  // tokenizer puts around one sequence or a pair ([CLS] a [SEP] b [SEP], <s> a </s></s> b </s>).
  // Returns the index in `out` of b's first token (of a's when there is no b).
  virtual std::size_t assemble(std::span<const std::int32_t> a, std::optional<std::span<const std::int32_t>> b,
                               Encoding& out) const = 0;
  // Pre-split words (run_ner.py's tokenizer(words, is_split_into_words=True, truncation=True,
  // max_length=...)): each word tokenized on its own, the tokens cut to max_seq_length with the
  // special tokens around them; word_ids gets each token's word index, -1 for special tokens.
  virtual void encode_words(const std::vector<std::string>& words, std::size_t max_seq_length, Encoding& out,
                            std::vector<std::int32_t>& word_ids) const = 0;
  // How many tokens assemble() adds to one sequence or to a pair.
  virtual std::size_t num_special_tokens(bool pair) const = 0;

  virtual std::int32_t pad_id() const = 0;
  // run_mlm's: the mask token's id ("[MASK]", or "<mask>" as RoBERTa's families spell it; -1
  // when the vocabulary has neither), and the ids of the special tokens (transformers'
  // all_special_ids: the added tokens marked special), which masking never chooses.
  virtual std::int32_t mask_id() const = 0;
  virtual std::vector<std::int32_t> special_ids() const = 0;
  // The largest id plus one: what config.json's vocab_size must cover.
  virtual std::size_t vocab_size() const = 0;
  virtual std::vector<std::string> tokens(const std::vector<std::int32_t>& ids) const = 0;
  // The file read, for messages, and what kind of tokenizer it is, for the log.
  virtual const std::string& source() const = 0;
  virtual std::string description() const = 0;
  // Writes the files that make this tokenizer into `folder` (atomically, file by file), so
  // that the folder loads with AutoTokenizer and with shmtrain.
  virtual void save(const std::filesystem::path& folder, std::size_t model_max_length) const = 0;
};

// The tokenizer at `path` (a folder or a file): a folder with tokenizer.json, vocab.json +
// merges.txt or sentencepiece.bpe.model is read as its files say (HfTokenizer::load); BERT's
// vocab.txt, or a tokenizer.json that is BERT's WordPiece, with BERT's casing rules and
// `do_lower_case` applied (HfTokenizer::load_bert). Throws InputError naming the file for anything unreadable.
// `pre_split_words`: the run feeds pre-split words, so a byte-level BPE tokenizer is loaded
// with add_prefix_space on, as run_ner.py loads RoBERTa's (each word then reads as after a
// space, "Ġword").
std::unique_ptr<Tokenizer> load_tokenizer(const std::filesystem::path& path, std::optional<bool> do_lower_case = {},
                                          bool pre_split_words = false);

// The names of the files save() may write, so an output folder can be recognised.
const std::vector<std::string>& tokenizer_file_names();

}  // namespace shmtrain::text
