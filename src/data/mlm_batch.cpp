// run_mlm's masking applied to a collated batch, row by row (mlm_masking.hpp).
#include <algorithm>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/dataset.hpp"
#include "shmtrain/data/mlm_masking.hpp"

namespace shmtrain::data {

void mask_batch(Batch& batch, const MlmMasking& rule, const TokenClasses& classes, std::uint64_t seed,
                std::uint64_t epoch) {
  if (batch.labels.size() != batch.input_ids.size() || batch.row_ids.size() != static_cast<std::size_t>(batch.batch)) {
    throw Error("mask_batch: the batch needs a label per token and a row id per row");
  }
  std::vector<std::uint8_t> special, continuation;
  for (std::int64_t b = 0; b < batch.batch; ++b) {
    const auto first = static_cast<std::size_t>(batch.row_begin(b));
    auto length = static_cast<std::size_t>(batch.row_length(b));
    const auto labels = batch.labels.begin() + static_cast<std::ptrdiff_t>(first);
    if (std::any_of(labels, labels + static_cast<std::ptrdiff_t>(length), [](std::int32_t l) { return l != kIgnoredLabel; })) {
      continue;
    }
    if (!batch.packed()) {  // the row's real tokens: padding never counts (nor is chosen)
      while (length > 0 && batch.attention_mask[first + length - 1] == 0) --length;
    }
    const std::span<const std::int32_t> ids(batch.input_ids.data() + first, length);
    special.assign(length, 0);
    continuation.assign(rule.whole_word ? length : 0, 0);
    for (std::size_t i = 0; i < length; ++i) {
      const auto id = static_cast<std::size_t>(ids[i]);
      special[i] = (id < classes.special.size() && classes.special[id] != 0) ||
                   (!batch.packed() && batch.attention_mask[first + i] == 0);
      if (rule.whole_word) continuation[i] = id < classes.continuation.size() && classes.continuation[id] != 0;
    }
    const MaskedRow masked =
        mask_row(ids, special, continuation, rule, seed, static_cast<std::uint64_t>(batch.row_ids[static_cast<std::size_t>(b)]), epoch);
    std::copy(masked.input_ids.begin(), masked.input_ids.end(), batch.input_ids.begin() + static_cast<std::ptrdiff_t>(first));
    std::copy(masked.labels.begin(), masked.labels.end(), labels);
  }
}

}  // namespace shmtrain::data
