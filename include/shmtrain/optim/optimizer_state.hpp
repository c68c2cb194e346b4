#pragma once
// AdamW's state in a checkpoint: optimizer.safetensors holds exp_avg.<name> and
// exp_avg_sq.<name> for every parameter slot (float32, the parameter's shape) and the
// step count in its metadata. By name, not as a flat arena, so a checkpoint stays readable
// when the arena's layout or padding changes.
#include <cstdint>
#include <filesystem>
#include <span>

#include "shmtrain/optim/param_slot.hpp"

namespace shmtrain::optim {

void save_optimizer_state(const std::filesystem::path& path, std::span<const ParamSlot> slots,
                          std::span<const float> exp_avg, std::span<const float> exp_avg_sq,
                          std::int64_t step);

// Fills exp_avg / exp_avg_sq (laid out by `slots`) and returns the step count. Throws
// InputError naming the file and the tensor when one is missing or has another shape.
std::int64_t load_optimizer_state(const std::filesystem::path& path, std::span<const ParamSlot> slots,
                                  std::span<float> exp_avg, std::span<float> exp_avg_sq);

}  // namespace shmtrain::optim
