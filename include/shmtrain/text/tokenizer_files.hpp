#pragma once
// Reading a Hugging Face BERT tokenizer from disk: a vocab.txt, a tokenizer.json, or a model
// folder holding them (and tokenizer_config.json). The result is plain settings, which
// HfTokenizer builds its BERT pipeline from (BertNormalizer, BertPreTokenizer, WordPiece,
// [CLS] $A [SEP] $B:1 [SEP]:1), as transformers' BertConverter does.
//
// Where each setting comes from, first found wins:
//   lower-casing:  the caller's override (--do_lower_case) > tokenizer_config.json
//                  do_lower_case > tokenizer.json normalizer.lowercase > the vocabulary:
//                  cased when it holds an upper-case token beyond the bracketed special ones
//                  (find_cased_token), otherwise uncased. HF itself defaults to lower-casing
//                  whenever tokenizer_config.json is silent, which silently lower-cases text
//                  for cased vocabularies that come without one; we look at the vocabulary
//                  instead, and say which rule decided (lowercase_origin).
//   strip_accents, tokenize_chinese_chars: tokenizer_config.json > tokenizer.json > default
//                  (strip when lower-casing; split CJK).
//   special tokens: [CLS] [SEP] [PAD] [UNK] [MASK], renamed by tokenizer_config.json's
//                  cls_token ... mask_token or tokenizer.json's model.unk_token; extra
//                  never-split tokens from tokenizer.json added_tokens and
//                  tokenizer_config.json additional_special_tokens and
//                  added_tokens_decoder (BertTokenizerFast ignores BasicTokenizer's
//                  never_split, and so do we).
// A folder is read as AutoTokenizer's fast path reads it: tokenizer.json when present, else
// vocab.txt; tokenizer_config.json only when a folder is given.
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shmtrain/text/vocab.hpp"

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

struct SpecialTokens {
  std::string cls = "[CLS]";
  std::string sep = "[SEP]";
  std::string pad = "[PAD]";
  std::string unk = "[UNK]";
  std::string mask = "[MASK]";
  std::vector<std::string> extra;  // further tokens kept whole when written in the text
};

struct TokenizerSpec {
  std::string source;  // the vocabulary file read, for messages
  std::shared_ptr<const Vocab> vocab;
  NormalizerOptions normalizer;
  std::string lowercase_origin;  // which rule set normalizer.lowercase, for the log
  SpecialTokens special;
  std::size_t max_input_chars_per_word = 100;
};

// Throws InputError naming the file and the fix when the path is missing, a file is
// unreadable, not UTF-8, not valid JSON, has a key of the wrong type, or describes a
// tokenizer other than BERT's WordPiece (e.g. a BPE tokenizer.json).
TokenizerSpec load_tokenizer_spec(const std::filesystem::path& path);

// Applies a --do_lower_case given by the user (strip_accents then follows it unless a file
// set strip_accents explicitly, as in HF).
void override_lowercase(TokenizerSpec& spec, std::optional<bool> do_lower_case);

}  // namespace shmtrain::text
