#include "shmtrain/optim/param_slot.hpp"

#include <algorithm>

namespace shmtrain::optim {

std::int64_t slots_end(std::span<const ParamSlot> slots) {
  std::int64_t end = 0;
  for (const ParamSlot& slot : slots) end = std::max(end, slot.offset + slot.size);
  return end;
}

}  // namespace shmtrain::optim
