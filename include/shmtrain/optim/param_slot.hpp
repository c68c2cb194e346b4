#pragma once
// What the optimizer knows of a parameter: where it lies in the flat arena, its name and
// shape (for the state file) and whether weight decay applies. The model's parameter table
// is turned into these by the trainer (train/optimizer_slots.hpp), so optim does not depend on
// the model.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace shmtrain::optim {

struct ParamSlot {
  std::string name;
  std::vector<std::int64_t> shape;
  std::int64_t offset = 0;  // in floats from the arena's start
  std::int64_t size = 0;    // product of shape
  bool decay = true;        // weight decay applies (HF Trainer: not to biases nor LayerNorm)
};

// Floats up to the end of the last slot (0 for none).
std::int64_t slots_end(std::span<const ParamSlot> slots);

}  // namespace shmtrain::optim
