#pragma once
// Dataset rows -> one Batch for the model, packed or padded.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "shmtrain/data/dataset.hpp"
#include "shmtrain/data/batch.hpp"

namespace shmtrain::data {

// How a batch's rows are laid out (batch.hpp): packed end to end (kNone, the default: no
// token is padding), or padded to the batch's longest row (kLongest, Hugging Face's dynamic
// padding) or to max_seq_length (kMaxLength, run_glue's pad_to_max_length).
enum class Padding { kNone, kLongest, kMaxLength };

// "none", "longest", "max_length" (Hugging Face's padding strategy names) and back.
const char* padding_name(Padding padding);
// Throws InputError naming `key` and the three names for anything else.
Padding parse_padding(const std::string& value, const std::string& key);

// Builds a Batch from dataset rows `indices` (in that order), laid out by `padding`: padded
// rows are filled with pad_id, token_type 0, attention_mask 0. Target::kChoice: each index is an
// example whose choices become rows of their own (batch.choices per example, a label per
// example); kList: the same for a query's candidates, any number per example (batch.list_lengths,
// a target per row); kMaskedTokens: the rows' own token labels where they bring them, -100 elsewhere. Packing drops a row's trailing
// masked tokens (pre-tokenized rows that come padded); a batch with a masked token inside a
// row (left padding) is padded to its longest row instead, which gives the same results. labels
// (Target::kClass), targets (kRegression) or start and end positions (kSpan). No indices give an empty batch
// (0 x 0, or 0 x max_seq_length). Throws InputError for an index outside the dataset or a row longer than
// max_seq_length.
Batch collate(const Dataset& dataset, std::span<const std::int64_t> indices, std::size_t max_seq_length,
              Padding padding, std::int32_t pad_id, Target target);

}  // namespace shmtrain::data
