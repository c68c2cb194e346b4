#pragma once
// pre-tokenized JSON Lines, one object per line:
//   {"input_ids": [101, 7592, 102], "token_type_ids": [0, 0, 0], "attention_mask": [1, 1, 1], "label": 1}
// input_ids required (token ids >= 0; the vocabulary range is the trainer's check);
// token_type_ids (default all 0, values >= 0) and attention_mask (default all 1, values 0
// or 1) optional, each as long as input_ids. Rows are never truncated: one longer than
// max_seq_length is an error.
#include <cstddef>
#include <vector>

#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/dataset.hpp"
#include "shmtrain/data/table.hpp"

namespace shmtrain::data {

// True when the first object has "input_ids".
bool is_pretokenized(const JsonLines& lines);

// The rows as examples (labels unset) and their raw "label" values.
void read_pretokenized(const JsonLines& lines, std::size_t max_seq_length, std::vector<Example>& examples,
                       std::vector<RawLabel>& labels);

}  // namespace shmtrain::data
