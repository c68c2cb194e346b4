#include "shmtrain/train/optimizer_slots.hpp"

namespace shmtrain::train {

std::vector<ParamSlot> optimizer_slots(const ParamTable& table) {
  std::vector<ParamSlot> slots;
  slots.reserve(table.entries().size());
  for (const ParamEntry& e : table.entries()) slots.push_back({e.name, e.shape, e.offset, e.size, e.decay});
  return slots;
}

}  // namespace shmtrain::train
