#include "shmtrain/optim/schedule.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "shmtrain/common/error.hpp"

namespace shmtrain::optim {

LrSchedule parse_lr_schedule(const std::string& name) {
  if (name == "linear") return LrSchedule::kLinear;
  if (name == "constant") return LrSchedule::kConstant;
  if (name == "constant_with_warmup") return LrSchedule::kConstantWithWarmup;
  if (name == "cosine") return LrSchedule::kCosine;
  fail_input("lr_scheduler_type '{}' is not one of linear, constant, constant_with_warmup, cosine", name);
}

std::string to_string(LrSchedule schedule) {
  switch (schedule) {
    case LrSchedule::kLinear: return "linear";
    case LrSchedule::kConstant: return "constant";
    case LrSchedule::kConstantWithWarmup: return "constant_with_warmup";
    case LrSchedule::kCosine: return "cosine";
  }
  return "linear";
}

double lr_multiplier(LrSchedule schedule, std::int64_t step, std::int64_t total_steps, std::int64_t warmup_steps) {
  const auto s = static_cast<double>(step);
  const auto w = static_cast<double>(warmup_steps);
  if (schedule == LrSchedule::kConstant) return 1.0;
  if (step < warmup_steps) return s / std::max(1.0, w);
  switch (schedule) {
    case LrSchedule::kConstantWithWarmup:
      return 1.0;
    case LrSchedule::kLinear:
      return std::max(0.0, static_cast<double>(total_steps - step) / std::max(1.0, static_cast<double>(total_steps - warmup_steps)));
    case LrSchedule::kCosine: {
      // HF's get_cosine_schedule_with_warmup with num_cycles = 0.5: a half cosine to zero.
      const double progress = (s - w) / std::max(1.0, static_cast<double>(total_steps - warmup_steps));
      return std::max(0.0, 0.5 * (1.0 + std::cos(std::numbers::pi * progress)));
    }
    case LrSchedule::kConstant:
      break;
  }
  return 1.0;
}

}  // namespace shmtrain::optim
