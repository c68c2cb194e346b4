#pragma once
// Activation caches and scratch are sized per batch shape; fit() resizes a buffer only when
// the shape changed, so steady steps reuse their memory.
#include <cstdint>
#include <vector>

namespace shmtrain::model {

template <typename T>
void fit(std::vector<T>& v, std::int64_t n) {
  if (static_cast<std::int64_t>(v.size()) != n) v.resize(static_cast<std::size_t>(n));
}

}  // namespace shmtrain::model
