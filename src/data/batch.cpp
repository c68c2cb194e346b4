#include "shmtrain/data/batch.hpp"

#include <algorithm>
#include <type_traits>

namespace shmtrain::data {

std::int64_t Batch::real_length(std::int64_t b) const {
  if (packed() || attention_mask.empty()) return row_length(b);
  const auto first = attention_mask.begin() + b * seq;
  return std::count_if(first, first + seq, [](std::int32_t m) { return m != 0; });
}

std::int64_t Batch::real_tokens() const {
  if (packed() || attention_mask.empty()) return tokens();
  return std::count_if(attention_mask.begin(), attention_mask.end(), [](std::int32_t m) { return m != 0; });
}

Batch slice_rows(const Batch& batch, std::int64_t first, std::int64_t count) {
  Batch out;
  out.batch = count;
  out.seq = batch.seq;
  out.loss_weight = batch.loss_weight;
  const std::int64_t begin = batch.row_begin(first);
  const std::int64_t end = count > 0 ? batch.row_begin(first + count - 1) + batch.row_length(first + count - 1) : begin;
  const auto tokens = [&](const std::vector<std::int32_t>& v) {
    return v.empty() ? v : std::vector<std::int32_t>(v.begin() + begin, v.begin() + end);
  };
  out.input_ids = tokens(batch.input_ids);
  out.token_type_ids = tokens(batch.token_type_ids);
  out.attention_mask = tokens(batch.attention_mask);
  if (batch.packed()) {
    out.seq = 0;
    for (std::int64_t b = first; b <= first + count; ++b) {
      out.offsets.push_back(static_cast<std::int32_t>(batch.offsets[b] - begin));
      if (b > first) out.seq = std::max<std::int64_t>(out.seq, out.offsets.back() - out.offsets[out.offsets.size() - 2]);
    }
  }
  const auto per_row = [&](const auto& v) {
    using V = std::decay_t<decltype(v)>;
    return static_cast<std::int64_t>(v.size()) == batch.batch ? V(v.begin() + first, v.begin() + first + count) : V{};
  };
  out.row_ids = per_row(batch.row_ids);
  out.labels = per_row(batch.labels);
  out.targets = per_row(batch.targets);
  return out;
}

}  // namespace shmtrain::data
