#include "shmtrain/data/batch.hpp"

#include <algorithm>

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

}  // namespace shmtrain::data
