#include "shmtrain/data/collate.hpp"

#include <algorithm>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data {

Batch collate(const Dataset& dataset, std::span<const std::int64_t> indices, std::size_t max_seq_length,
              bool pad_to_max_length, std::int32_t pad_id, Target target) {
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

  for (std::size_t b = 0; b < indices.size(); ++b) {
    const Example& example = dataset.examples[static_cast<std::size_t>(indices[b])];
    std::copy(example.input_ids.begin(), example.input_ids.end(), batch.input_ids.begin() + b * seq);
    std::copy(example.token_type_ids.begin(), example.token_type_ids.end(),
              batch.token_type_ids.begin() + b * seq);
    std::copy(example.attention_mask.begin(), example.attention_mask.end(),
              batch.attention_mask.begin() + b * seq);
    switch (target) {
      case Target::kClass:
        batch.labels.push_back(example.label);
        break;
      case Target::kRegression:
        batch.targets.push_back(example.target);
        break;
      case Target::kSpan:
        batch.start_positions.push_back(example.start_position);
        batch.end_positions.push_back(example.end_position);
        break;
    }
  }
  return batch;
}

}  // namespace shmtrain::data
