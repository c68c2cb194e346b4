#include "shmtrain/tensor/allocator.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

#include "shmtrain/common/error.hpp"

namespace shmtrain::tensor {

void HeapArenaAllocator::Free::operator()(float* p) const { std::free(p); }

std::span<float> HeapArenaAllocator::allocate(std::size_t count, std::string_view purpose) {
  const std::size_t bytes = (count * sizeof(float) + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes == 0 ? 64 : bytes);
  if (p == nullptr) throw Error(fmt::format("out of memory allocating {} bytes for the {} arena", bytes, purpose));
  std::memset(p, 0, bytes == 0 ? 64 : bytes);
  blocks_.emplace_back(static_cast<float*>(p));
  return {static_cast<float*>(p), count};
}

}  // namespace shmtrain::tensor
