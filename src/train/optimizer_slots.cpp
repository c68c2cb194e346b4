#include "shmtrain/train/optimizer_slots.hpp"

namespace shmtrain::train {

std::vector<optim::ParamSlot> optimizer_slots(const model::ParamTable& table) {
  std::vector<optim::ParamSlot> slots;
  slots.reserve(table.entries().size());
  for (const model::ParamEntry& e : table.entries())
    slots.push_back({e.name, e.shape, e.offset, e.size, e.decay});
  return slots;
}

}  // namespace shmtrain::train
