#pragma once
// Internal to text: what an HfTokenizer is made of, filled by tokenizer_json.cpp,
// legacy_files.cpp or bert_files.cpp and run by hf_tokenizer.cpp.
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "added_vocabulary.hpp"
#include "bert_ids_path.hpp"
#include "ids_layout.hpp"
#include "models.hpp"
#include "normalizers.hpp"
#include "post_processors.hpp"
#include "pre_tokenizers.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"
#include "shmtrain/text/tokenizer_files.hpp"

namespace shmtrain::text {

struct HfTokenizer::Impl {
  std::string source;
  std::string description;
  std::vector<std::filesystem::path> files;
  std::unique_ptr<pipeline::Normalizer> normalizer;        // may be null
  std::unique_ptr<pipeline::PreTokenizer> pre_tokenizer;   // may be null
  std::unique_ptr<pipeline::Model> model;
  std::unique_ptr<pipeline::PostProcessor> post_processor;  // never null
  pipeline::AddedVocabulary added;
  std::int32_t pad_id = -1;
  // Set for a pipeline built from BERT's settings (bert_files.cpp): what save() writes back.
  std::optional<TokenizerSpec> bert_spec;
  // A pipeline standing for a slow tokenizer (DebertaV2Tokenizer's spm.model): truncation as
  // transformers' Python code does it (truncate_pair).
  bool slow_truncation = false;
  // Set when the steps are BERT's: the ids-only encode (bert_ids_path.hpp).
  std::unique_ptr<pipeline::BertIdsPath> ids_path;
  // The post-processor's special tokens, for the encodes that want only ids (ids_layout.hpp).
  pipeline::IdsLayout layout;

  const std::string& token(std::int32_t id) const;
  // token() as the post-processors take it.
  pipeline::TokenNames names() const {
    return [this](std::int32_t id) -> const std::string& { return token(id); };
  }
  // Truncates a (and b) so that they fit max_length with the special tokens, then
  // post-processes them: what every encode ends with.
  pipeline::SequenceTokens finish(pipeline::SequenceTokens a, pipeline::SequenceTokens* b, bool add_special_tokens,
                                  const Truncation& truncation) const;
};

namespace pipeline {

// Appends the ids of `text` through impl's steps, no special tokens: the ids encode_text gives,
// without its tokens, offsets and word ids (ids_path's when set). Throws InputError "<what>:
// invalid UTF-8 ..." (steps_ids.cpp).
void tokenize_ids(const HfTokenizer::Impl& impl, std::string_view text, std::vector<std::int32_t>& ids,
                  std::string_view what);

// Cuts a (and b) to `budget` tokens as `truncation` says (truncation.cpp). Throws InputError
// for a cut the strategy cannot make.
// slow_truncation: as transformers' slow tokenizers cut (longest_first one token at a time from
// the longer text, the second on a tie; only_second leaves a single text whole; a text is never
// cut to nothing) instead of as tokenizers' does.
void truncate_pair(SequenceTokens& a, SequenceTokens* b, std::size_t budget, const Truncation& truncation,
                   bool slow_truncation = false);

// tokenizer.json at `path` (tokenizer_json.cpp).
// `add_prefix_space`: ByteLevel's (pre-tokenizer and post-processor) forced on.
std::unique_ptr<HfTokenizer::Impl> read_tokenizer_json(const std::filesystem::path& path, bool add_prefix_space = false);
// A folder's vocab.json + merges.txt, or sentencepiece.bpe.model (legacy_files.cpp).
std::unique_ptr<HfTokenizer::Impl> read_roberta_files(const std::filesystem::path& folder, bool add_prefix_space = false);
std::unique_ptr<HfTokenizer::Impl> read_sentencepiece_model(const std::filesystem::path& file);
// A folder's JSON object file (tokenizer_config.json): an empty object when absent or not an object.
nlohmann::json read_optional_json(const std::filesystem::path& file);
// DeBERTa-v2/v3's spm.model with tokenizer_config.json's do_lower_case and split_by_punct
// (deberta_spm.cpp).
std::unique_ptr<HfTokenizer::Impl> read_deberta_spm(const std::filesystem::path& file);
// BERT's vocab.txt, or a BERT tokenizer.json, with tokenizer_config.json's settings and the
// user's --do_lower_case (tokenizer_files.hpp), built as transformers' BertConverter builds a
// vocab.txt: BertNormalizer + BertPreTokenizer + WordPiece + [CLS] $A [SEP] $B:1 [SEP]:1
// (bert_files.cpp).
std::unique_ptr<HfTokenizer::Impl> read_bert_files(const std::filesystem::path& path, std::optional<bool> do_lower_case);

}  // namespace pipeline
}  // namespace shmtrain::text
