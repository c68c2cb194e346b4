#pragma once
// Internal to text/pipeline: the encode of BERT's pipeline (BertNormalizer -> BertPreTokenizer
// -> WordPiece, special tokens matched in the raw text as written) when only ids are wanted,
// as training's tokenization and run_glue want them. It gives the ids the steps give one by
// one, without the per-character alignment they carry for offsets: the words come from one
// pass over the UTF-8 bytes (bert_words.hpp) and WordPiece walks its byte trie directly.
// Offsets, tokens and word ids still come from the steps (hf_tokenizer.cpp); the special
// tokens from the post-processor's IdsLayout.
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "added_vocabulary.hpp"
#include "models.hpp"
#include "normalizers.hpp"
#include "pre_tokenizers.hpp"
#include "shmtrain/text/added_tokens.hpp"

namespace shmtrain::text::pipeline {

class BertIdsPath {
 public:
  // The path for these steps, or null when they are not BERT's (another normalizer,
  // pre-tokenizer or model, or an added token matched after normalisation or with
  // lstrip/rstrip/single_word). `normalizer` and `pre_tokenizer` may be null.
  static std::unique_ptr<BertIdsPath> make(const Normalizer* normalizer, const PreTokenizer* pre_tokenizer,
                                           const Model& model, const AddedVocabulary& added);

  // Appends the ids of `text`, no special tokens. Throws InputError "<what>: invalid UTF-8 ...".
  void tokenize(std::string_view text, std::vector<std::int32_t>& ids, std::string_view what) const;

 private:
  BertIdsPath(NormalizerOptions options, const WordPieceModel& model, std::vector<AddedTokenMatcher::Token> added)
      : options_(options), model_(model), added_(std::move(added)) {}

  NormalizerOptions options_;
  const WordPieceModel& model_;
  AddedTokenMatcher added_;
};

}  // namespace shmtrain::text::pipeline
