#pragma once
// Internal to text/pipeline: the encode of BERT's pipeline (BertNormalizer -> BertPreTokenizer
// -> WordPiece, special tokens matched in the raw text as written) when only ids are wanted,
// as training's tokenization and run_glue want them. It gives the ids the steps give one by
// one, without the per-character alignment they carry for offsets: the words come from one
// pass over the UTF-8 bytes (bert_words.hpp) and WordPiece walks its byte trie directly.
// Offsets, tokens and word ids still come from the steps (hf_tokenizer.cpp).
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "added_vocabulary.hpp"
#include "models.hpp"
#include "normalizers.hpp"
#include "post_processors.hpp"
#include "pre_tokenizers.hpp"
#include "shmtrain/text/added_tokens.hpp"
#include "shmtrain/text/tokenizer.hpp"

namespace shmtrain::text::pipeline {

class BertIdsPath {
 public:
  // The path for these steps, or null when they are not BERT's (another normalizer,
  // pre-tokenizer or model, or an added token matched after normalisation or with
  // lstrip/rstrip/single_word). `normalizer` and `pre_tokenizer` may be null.
  static std::unique_ptr<BertIdsPath> make(const Normalizer* normalizer, const PreTokenizer* pre_tokenizer,
                                           const Model& model, const AddedVocabulary& added,
                                           const PostProcessor& post_processor, const TokenNames& names);

  // Appends the ids of `text`, no special tokens. Throws InputError "<what>: invalid UTF-8 ...".
  void tokenize(std::string_view text, std::vector<std::int32_t>& ids, std::string_view what) const;
  // a (and b) with the special tokens and token types the post-processor puts around them.
  void assemble(std::span<const std::int32_t> a, std::optional<std::span<const std::int32_t>> b, Encoding& out) const;

  // One position of the post-processor's output: a special token, or a sequence's tokens.
  struct Slot {
    std::int32_t sequence;  // -1: the special token `id`; 0 or 1: the first or second text
    std::int32_t id;
    std::int32_t type_id;
  };

 private:
  BertIdsPath(NormalizerOptions options, const WordPieceModel& model, std::vector<AddedTokenMatcher::Token> added)
      : options_(options), model_(model), added_(std::move(added)) {}

  NormalizerOptions options_;
  const WordPieceModel& model_;
  AddedTokenMatcher added_;
  std::vector<Slot> single_;
  std::vector<Slot> pair_;
};

}  // namespace shmtrain::text::pipeline
