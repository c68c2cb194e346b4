#pragma once
// Learning-rate schedules as Hugging Face's transformers.optimization (get_scheduler): the
// multiplier at optimizer step `step` (0-based: the LR the step-th update uses).
#include <cstdint>
#include <string>

namespace shmtrain::optim {

enum class LrSchedule { kLinear, kConstant, kConstantWithWarmup, kCosine };

// "linear", "constant", "constant_with_warmup", "cosine"; InputError otherwise.
LrSchedule parse_lr_schedule(const std::string& name);
std::string to_string(LrSchedule schedule);

// REQUIRES: total_steps >= 1, warmup_steps >= 0.
double lr_multiplier(LrSchedule schedule, std::int64_t step, std::int64_t total_steps, std::int64_t warmup_steps);

}  // namespace shmtrain::optim
