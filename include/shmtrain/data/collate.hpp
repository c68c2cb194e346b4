#pragma once
// Dataset rows -> one padded Batch for the model.
#include <cstddef>
#include <cstdint>
#include <span>

#include "shmtrain/data/dataset.hpp"
#include "shmtrain/data/batch.hpp"

namespace shmtrain::data {

// Builds a Batch from dataset rows `indices` (in that order):
// seq = max_seq_length when pad_to_max_length, else the longest row of this batch;
// padding with pad_id, token_type 0, attention_mask 0. labels (Target::kClass), targets
// (kRegression) or start and end positions (kSpan). No indices give an empty batch (0 x 0, or
// 0 x max_seq_length). Throws InputError for an index outside the dataset or a row longer than
// max_seq_length.
Batch collate(const Dataset& dataset, std::span<const std::int64_t> indices, std::size_t max_seq_length,
              bool pad_to_max_length, std::int32_t pad_id, Target target);

}  // namespace shmtrain::data
