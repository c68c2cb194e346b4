#pragma once
// run_mlm's masking, as transformers' DataCollatorForLanguageModeling draws it: each token of a
// row that is neither special nor padding is chosen with probability `probability`; a chosen
// token's label is its id (every other label -100) and its input becomes the mask token (80%), a
// random id of the whole vocabulary (10%, which may be the token itself) or stays (10%).
// Whole-word masking (DataCollatorForWholeWordMask's rule): the row's words (a token and the
// continuation tokens after it; specials are no word) in a random order are taken whole while the
// chosen tokens stay within max(1, round(row length x probability)) (the length counts the
// specials, as transformers counts them; round half to even, as Python's); then the same 80/10/10.
//
// The draws are a pure function of (seed, row id, epoch): a row gets the same mask on whichever
// worker, in whichever batch, so 1 and P workers train the same model. They are not torch's
// draws (the rule and its rates are the same, the random numbers are our own).
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "shmtrain/data/batch.hpp"

namespace shmtrain::data {

struct MlmMasking {
  double probability = 0.15;    // --mlm_probability
  std::int32_t mask_id = -1;    // the tokenizer's mask token
  std::int32_t vocab_size = 0;  // len(tokenizer): random replacements come from [0, vocab_size)
  bool whole_word = false;      // --whole_word_mask
};

struct MaskedRow {
  std::vector<std::int32_t> input_ids;
  std::vector<std::int32_t> labels;  // -100 where nothing is predicted
};

// How a tokenizer marks the tokens that continue a word: WordPiece's "##" prefix; byte-level
// BPE's and SentencePiece's word starts carry "Ġ" / "▁", so a token without one continues.
enum class WordMarks { kWordPiece, kByteLevel, kMetaspace };
bool continues_word(std::string_view token, WordMarks marks);

// `special[i]` != 0: token i is a special token or padding (never chosen, never a word);
// `continuation[i]` != 0: token i continues the word before it (whole-word masking only; may be
// empty otherwise). Throws Error when the rule's ids or the spans' sizes are inconsistent.
MaskedRow mask_row(std::span<const std::int32_t> ids, std::span<const std::uint8_t> special,
                   std::span<const std::uint8_t> continuation, const MlmMasking& rule, std::uint64_t seed,
                   std::uint64_t row_id, std::uint64_t epoch);

// What masking knows of each vocabulary id (mlm_batch.cpp): special[id] != 0, never chosen (the
// tokenizer's special tokens); continuation[id] != 0, the token continues the word before it
// (whole-word masking; empty otherwise).
struct TokenClasses {
  std::vector<std::uint8_t> special;
  std::vector<std::uint8_t> continuation;
};

// Masks, in place, every row of `batch` that brings no labels of its own (all -100: pre-tokenized
// rows with labels are used as they are): its input ids and labels as mask_row draws them for the
// row's batch.row_ids entry. Padding (attention_mask 0) is never chosen. REQUIRES: batch.labels
// holds a label per token (collate's Target::kMaskedTokens) and row_ids is set.
void mask_batch(Batch& batch, const MlmMasking& rule, const TokenClasses& classes, std::uint64_t seed,
                std::uint64_t epoch);

}  // namespace shmtrain::data
