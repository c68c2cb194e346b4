#pragma once
// Where the flat arenas (parameters, gradients, optimizer state) live. The model asks an
// ArenaAllocator for its memory so the exchange can place the gradient arena in the shared
// segment (comm) while tests and single-process runs use the heap.
#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace shmtrain::tensor {

class ArenaAllocator {
 public:
  virtual ~ArenaAllocator() = default;
  // Returns `count` zeroed floats, 64-byte aligned, alive as long as the allocator.
  // `purpose` names the arena in error messages ("gradients").
  virtual std::span<float> allocate(std::size_t count, std::string_view purpose) = 0;
};

class HeapArenaAllocator final : public ArenaAllocator {
 public:
  std::span<float> allocate(std::size_t count, std::string_view purpose) override;

 private:
  struct Free {
    void operator()(float* p) const;
  };
  std::vector<std::unique_ptr<float, Free>> blocks_;
};

}  // namespace shmtrain::tensor
