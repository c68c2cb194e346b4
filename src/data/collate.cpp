#include "shmtrain/data/collate.hpp"

#include <algorithm>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data {
namespace {

// The longest row of `indices`, after checking every row.
std::size_t check_rows(const Dataset& dataset, std::span<const std::int64_t> indices,
                       std::size_t max_seq_length) {
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
  return longest;
}

void add_target(Batch& batch, const Example& example, Target target) {
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
    case Target::kTokens:
    case Target::kMaskedTokens:
      break;  // laid out with the tokens: add_token_labels
    case Target::kChoice:
      batch.labels.push_back(example.label);  // one per example
      break;
    case Target::kTexts:
      batch.targets.push_back(example.target);  // a scored pair's score; 0 where there is none
      break;
    case Target::kList:  // a label per candidate row
      batch.targets.insert(batch.targets.end(), example.choice_targets.begin(), example.choice_targets.end());
      break;
  }
}

// A listwise example's candidate c has row id example * kListRowStride + c: ids stay distinct
// whatever the lists' lengths (a list longer than the stride is refused).
constexpr std::int64_t kListRowStride = std::int64_t{1} << 20;

// Multiple choice: each example's choices as rows of their own, example-major. Row ids count
// choices (example * choices + c), so each choice draws its own dropout masks. `lists`: the
// examples may have any number of rows (listwise reranking), each length pushed to lengths.
Dataset choice_rows(const Dataset& dataset, std::span<const std::int64_t> indices, std::vector<std::int64_t>& row_ids,
                    std::int64_t& choices, bool lists, std::vector<std::int32_t>& lengths) {
  Dataset rows{dataset.source, {}};
  choices = 0;
  for (const std::int64_t index : indices) {
    const Example& example = dataset.examples[static_cast<std::size_t>(index)];
    const auto n = static_cast<std::int64_t>(example.choice_lengths.size());
    if (lists) {
      if (n == 0 || n >= kListRowStride) {
        fail_input("{}: example {} has {} candidates (1 to {} can be trained)", dataset.source, index, n,
                   kListRowStride - 1);
      }
      if (example.choice_targets.size() != static_cast<std::size_t>(n)) {
        fail_input("{}: example {} has {} candidates and {} labels", dataset.source, index, n,
                   example.choice_targets.size());
      }
      lengths.push_back(static_cast<std::int32_t>(n));
    } else if (n == 0 || (choices != 0 && n != choices)) {
      fail_input("{}: example {} has {} choices where the batch's others have {}", dataset.source, index, n, choices);
    }
    choices = lists ? 0 : n;
    std::size_t first = 0;
    for (std::int64_t c = 0; c < n; ++c) {
      const auto length = static_cast<std::size_t>(example.choice_lengths[static_cast<std::size_t>(c)]);
      if (first + length > example.input_ids.size()) {
        fail_input("{}: example {}: its choices' lengths exceed its {} tokens", dataset.source, index,
                   example.input_ids.size());
      }
      const auto slice = [&](const std::vector<std::int32_t>& v) {
        return std::vector<std::int32_t>(v.begin() + static_cast<std::ptrdiff_t>(first),
                                         v.begin() + static_cast<std::ptrdiff_t>(first + length));
      };
      Example row;
      row.input_ids = slice(example.input_ids);
      row.token_type_ids = slice(example.token_type_ids);
      row.attention_mask = slice(example.attention_mask);
      rows.examples.push_back(std::move(row));
      row_ids.push_back(lists ? index * kListRowStride + c : index * n + c);
      first += length;
    }
  }
  return rows;
}

// Each row's token labels where its tokens are in the layout; padding takes none.
void add_token_labels(Batch& batch, const Dataset& dataset, std::span<const std::int64_t> indices) {
  batch.labels.assign(static_cast<std::size_t>(batch.tokens()), kIgnoredLabel);
  for (std::size_t b = 0; b < indices.size(); ++b) {
    const Example& example = dataset.examples[static_cast<std::size_t>(indices[b])];
    const auto first = static_cast<std::size_t>(batch.row_begin(static_cast<std::int64_t>(b)));
    const std::size_t length = std::min(example.token_labels.size(), static_cast<std::size_t>(batch.row_length(static_cast<std::int64_t>(b))));
    std::copy_n(example.token_labels.begin(), length, batch.labels.begin() + static_cast<std::ptrdiff_t>(first));
  }
}

// A row's tokens up to its last unmasked one: pre-tokenized rows may come padded already
// (attention_mask 0 at the end), and packing drops that padding.
std::size_t real_length(const Example& example) {
  std::size_t length = example.attention_mask.size();
  while (length > 0 && example.attention_mask[length - 1] == 0) --length;
  return length;
}

// Whether every row can be packed with the results padding gives: its masked tokens, if any,
// all trail it. A masked token inside a row (left padding, a hole) keeps the batch padded.
bool packable(const Dataset& dataset, std::span<const std::int64_t> indices) {
  for (const std::int64_t index : indices) {
    const Example& example = dataset.examples[static_cast<std::size_t>(index)];
    const std::size_t length = real_length(example);
    if (length == 0) return false;
    for (std::size_t t = 0; t < length; ++t) {
      if (example.attention_mask[t] == 0) return false;
    }
  }
  return true;
}

void pack(Batch& batch, const Dataset& dataset, std::span<const std::int64_t> indices) {
  batch.offsets.push_back(0);
  std::size_t longest = 0;
  for (const std::int64_t index : indices) {
    const Example& example = dataset.examples[static_cast<std::size_t>(index)];
    const auto length = static_cast<std::ptrdiff_t>(real_length(example));
    batch.input_ids.insert(batch.input_ids.end(), example.input_ids.begin(),
                           example.input_ids.begin() + length);
    batch.token_type_ids.insert(batch.token_type_ids.end(), example.token_type_ids.begin(),
                                example.token_type_ids.begin() + length);
    batch.offsets.push_back(static_cast<std::int32_t>(batch.input_ids.size()));
    longest = std::max(longest, static_cast<std::size_t>(length));
  }
  batch.seq = static_cast<std::int64_t>(longest);
}

void pad(Batch& batch, const Dataset& dataset, std::span<const std::int64_t> indices, std::int32_t pad_id) {
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
  }
}

}  // namespace

const char* padding_name(Padding padding) {
  switch (padding) {
    case Padding::kNone:
      return "none";
    case Padding::kLongest:
      return "longest";
    case Padding::kMaxLength:
      return "max_length";
  }
  return "none";
}

Padding parse_padding(const std::string& value, const std::string& key) {
  for (const Padding p : {Padding::kNone, Padding::kLongest, Padding::kMaxLength}) {
    if (value == padding_name(p)) return p;
  }
  fail_input("{}: '{}' is not a padding; use none (packed rows), longest or max_length", key, value);
}

Batch collate(const Dataset& dataset, std::span<const std::int64_t> indices, std::size_t max_seq_length,
              Padding padding, std::int32_t pad_id, Target target) {
  if (target == Target::kChoice || target == Target::kTexts || target == Target::kList) {
    for (const std::int64_t index : indices) {
      if (index < 0 || index >= static_cast<std::int64_t>(dataset.examples.size())) {
        fail_input("{}: row index {} is outside the dataset's {} rows", dataset.source, index, dataset.examples.size());
      }
    }
    std::vector<std::int64_t> row_ids;
    std::int64_t choices = 0;
    std::vector<std::int32_t> lengths;
    const Dataset rows = choice_rows(dataset, indices, row_ids, choices, target == Target::kList, lengths);
    std::vector<std::int64_t> all(rows.examples.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int64_t>(i);
    Batch batch = collate(rows, all, max_seq_length, padding, pad_id, Target::kClass);
    batch.labels.clear();
    batch.row_ids = std::move(row_ids);
    batch.choices = choices;
    batch.list_lengths = std::move(lengths);
    for (const std::int64_t index : indices) add_target(batch, dataset.examples[static_cast<std::size_t>(index)], target);
    return batch;
  }
  const std::size_t longest = check_rows(dataset, indices, max_seq_length);
  Batch batch;
  batch.batch = static_cast<std::int64_t>(indices.size());
  batch.seq = static_cast<std::int64_t>(padding == Padding::kMaxLength ? max_seq_length : longest);
  if (padding == Padding::kNone && !indices.empty() && packable(dataset, indices)) {
    pack(batch, dataset, indices);
  } else {
    pad(batch, dataset, indices, pad_id);
  }
  batch.row_ids.assign(indices.begin(), indices.end());
  for (const std::int64_t index : indices)
    add_target(batch, dataset.examples[static_cast<std::size_t>(index)], target);
  if (target == Target::kTokens || target == Target::kMaskedTokens) add_token_labels(batch, dataset, indices);
  return batch;
}

}  // namespace shmtrain::data
