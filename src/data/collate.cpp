#include "shmtrain/data/collate.hpp"

#include <algorithm>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data {

Batch collate(const Dataset& dataset, std::span<const std::int64_t> indices, std::size_t max_seq_length,
              bool pad_to_max_length, std::int32_t pad_id, bool regression) {
  const auto n_rows = static_cast<std::int64_t>(dataset.examples.size());
  std::size_t longest = 0;
  for (const std::int64_t index : indices) {
    if (index < 0 || index >= n_rows) {
      fail_input("{}: row index {} is outside the dataset's {} rows", dataset.source, index, n_rows);
    }
    const Example& example = dataset.examples[static_cast<std::size_t>(index)];
    if (example.input_ids.size() > max_seq_length) {
      fail_input("{}: row {} has {} tokens, more than max_seq_length {}", dataset.source, index,
                 example.input_ids.size(), max_seq_length);
    }
    if (example.token_type_ids.size() != example.input_ids.size() ||
        example.attention_mask.size() != example.input_ids.size()) {
      fail_input("{}: row {}: input_ids, token_type_ids and attention_mask differ in length", dataset.source,
                 index);
    }
    longest = std::max(longest, example.input_ids.size());
  }
  Batch batch;
  batch.batch = static_cast<std::int64_t>(indices.size());
  batch.seq = static_cast<std::int64_t>(pad_to_max_length ? max_seq_length : longest);
  const auto seq = static_cast<std::size_t>(batch.seq);
  const std::size_t cells = indices.size() * seq;
  batch.input_ids.assign(cells, pad_id);
  batch.token_type_ids.assign(cells, 0);
  batch.attention_mask.assign(cells, 0);
  if (regression) {
    batch.targets.reserve(indices.size());
  } else {
    batch.labels.reserve(indices.size());
  }
  for (std::size_t b = 0; b < indices.size(); ++b) {
    const Example& example = dataset.examples[static_cast<std::size_t>(indices[b])];
    std::copy(example.input_ids.begin(), example.input_ids.end(), batch.input_ids.begin() + b * seq);
    std::copy(example.token_type_ids.begin(), example.token_type_ids.end(),
              batch.token_type_ids.begin() + b * seq);
    std::copy(example.attention_mask.begin(), example.attention_mask.end(),
              batch.attention_mask.begin() + b * seq);
    if (regression) {
      batch.targets.push_back(example.target);
    } else {
      batch.labels.push_back(example.label);
    }
  }
  return batch;
}

}  // namespace shmtrain::data
