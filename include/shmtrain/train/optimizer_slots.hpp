#pragma once
// The model's parameter table as the optimizer sees it: one slot per parameter, with its
// name, shape, place in the arena and the Trainer's weight-decay rule.
#include <vector>

#include "shmtrain/model/param_table.hpp"
#include "shmtrain/optim/param_slot.hpp"

namespace shmtrain::train {

std::vector<optim::ParamSlot> optimizer_slots(const model::ParamTable& table);

}  // namespace shmtrain::train
