#pragma once
// Activation caches and scratch are sized per batch shape; fit() resizes a buffer only when
// the shape changed, so steady steps reuse their memory. Packed batches change their token
// count every step: a buffer never gives memory back, and when it must grow it takes a quarter
// more than asked, so that most steps find room (each reallocation faults in fresh pages).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace shmtrain::model {

template <typename T>
void fit(std::vector<T>& v, std::int64_t n) {
  const auto size = static_cast<std::size_t>(n);
  if (v.size() == size) return;
  if (size > v.capacity()) v.reserve(size + size / 4);
  v.resize(size);
}

}  // namespace shmtrain::model
