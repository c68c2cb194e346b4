#include "shmtrain/data/dataset.hpp"

namespace shmtrain::data {

void keep_first(Dataset& dataset, std::optional<std::size_t> max_samples) {
  if (max_samples && dataset.examples.size() > *max_samples) dataset.examples.resize(*max_samples);
}

std::optional<std::int32_t> LabelSet::id_of(std::string_view name) const {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<std::int32_t>(i);
  }
  return std::nullopt;
}

}  // namespace shmtrain::data
