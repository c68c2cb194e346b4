#pragma once
// Internal to task/reranking: which column of a cross-encoder table holds the labels.
#include <cstddef>
#include <optional>

#include "shmtrain/data/table.hpp"

namespace shmtrain::task {

// The cross-encoder data collator's label columns, the first present in its order.
inline std::optional<std::size_t> label_column(const data::Table& table) {
  for (const char* name : {"label", "labels", "score", "scores"}) {
    if (const auto c = table.find_column(name)) return c;
  }
  return std::nullopt;
}

}  // namespace shmtrain::task
