#include "shmtrain/data/dataset.hpp"

namespace shmtrain::data {

std::optional<std::int32_t> LabelSet::id_of(std::string_view name) const {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<std::int32_t>(i);
  }
  return std::nullopt;
}

}  // namespace shmtrain::data
