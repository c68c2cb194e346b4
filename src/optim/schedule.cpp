// The lambdas of transformers/optimization.py (the _get_*_lr_lambda functions), written with
// Python's order of operations so that the multipliers are the same doubles.
#include "shmtrain/optim/schedule.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/json_error.hpp"

namespace shmtrain::optim {
namespace {

struct ScheduleName {
  LrSchedule type;
  const char* name;
};

constexpr std::array kScheduleNames = {
    ScheduleName{LrSchedule::kLinear, "linear"},
    ScheduleName{LrSchedule::kCosine, "cosine"},
    ScheduleName{LrSchedule::kCosineWithRestarts, "cosine_with_restarts"},
    ScheduleName{LrSchedule::kPolynomial, "polynomial"},
    ScheduleName{LrSchedule::kConstant, "constant"},
    ScheduleName{LrSchedule::kConstantWithWarmup, "constant_with_warmup"},
    ScheduleName{LrSchedule::kInverseSqrt, "inverse_sqrt"},
    ScheduleName{LrSchedule::kCosineWithMinLr, "cosine_with_min_lr"},
};

// Trainer's SchedulerType names that shmtrain does not implement.
constexpr std::array kNotImplemented = {"reduce_lr_on_plateau", "cosine_warmup_with_min_lr", "warmup_stable_decay"};

std::string known_names() {
  std::vector<std::string> names;
  for (const ScheduleName& s : kScheduleNames) names.emplace_back(s.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

// The keyword arguments the schedule's get_*_schedule function takes besides the optimizer,
// the step counts and last_epoch.
std::vector<std::string> kwargs_of(LrSchedule type) {
  switch (type) {
    case LrSchedule::kCosine:
    case LrSchedule::kCosineWithRestarts: return {"num_cycles"};
    case LrSchedule::kPolynomial: return {"lr_end", "power"};
    case LrSchedule::kInverseSqrt: return {"timescale"};
    case LrSchedule::kCosineWithMinLr: return {"num_cycles", "min_lr", "min_lr_rate"};
    case LrSchedule::kLinear:
    case LrSchedule::kConstant:
    case LrSchedule::kConstantWithWarmup: break;
  }
  return {};
}

// a * b rounded to a double before anything is added to it. At -march=native GCC fuses
// a * b + c into one FMA (one rounding), even in ISO mode; Python rounds twice, and the
// schedules' results are to be Python's.
double unfused_product(double a, double b) {
  const volatile double product = a * b;
  return product;
}

// Python's float % (floatobject.c, float_rem): the remainder takes the divisor's sign.
double python_mod(double x, double divisor) {
  double mod = std::fmod(x, divisor);
  if (mod != 0.0) {
    if ((divisor < 0) != (mod < 0)) mod += divisor;
  } else {
    mod = std::copysign(0.0, divisor);
  }
  return mod;
}

double warmup_fraction(std::int64_t step, std::int64_t warmup_steps) {
  return static_cast<double>(step) / static_cast<double>(std::max<std::int64_t>(1, warmup_steps));
}

// float(current_step - num_warmup_steps) / float(max(1, num_training_steps - num_warmup_steps))
double decay_progress(std::int64_t step, std::int64_t total_steps, std::int64_t warmup_steps) {
  return static_cast<double>(step - warmup_steps) /
         static_cast<double>(std::max<std::int64_t>(1, total_steps - warmup_steps));
}

}  // namespace

LrSchedule parse_lr_schedule(const std::string& name) {
  for (const ScheduleName& s : kScheduleNames) {
    if (name == s.name) return s.type;
  }
  for (const char* other : kNotImplemented) {
    if (name == other) {
      fail_input("lr_scheduler_type '{}' is one of Trainer's schedules that shmtrain does not implement; use one of {}",
                 name, known_names());
    }
  }
  fail_input("lr_scheduler_type '{}' is not one of {}", name, known_names());
}

std::string to_string(LrSchedule schedule) {
  for (const ScheduleName& s : kScheduleNames) {
    if (s.type == schedule) return s.name;
  }
  return "linear";
}

LrScheduleSpec make_lr_schedule(LrSchedule type, std::string_view kwargs_json, double learning_rate) {
  LrScheduleSpec spec;
  spec.type = type;
  spec.lr_init = learning_rate;
  if (type == LrSchedule::kCosineWithRestarts) spec.num_cycles = 1.0;
  const std::string name = to_string(type);

  nlohmann::json kwargs = nlohmann::json::object();
  if (kwargs_json.find_first_not_of(" \t\r\n") != std::string_view::npos) {
    try {
      kwargs = nlohmann::json::parse(kwargs_json);
    } catch (const nlohmann::json::exception& e) {
      fail_input("lr_scheduler_kwargs is not JSON ({}): pass an object such as '{{\"num_cycles\": 2}}'",
                 io::json_error_text(e.what()));
    }
  }
  if (!kwargs.is_object()) {
    fail_input("lr_scheduler_kwargs must be a JSON object such as '{{\"num_cycles\": 2}}', got {}", kwargs.dump());
  }
  const std::vector<std::string> accepted = kwargs_of(type);
  std::vector<std::string> unknown;
  for (const auto& [key, value] : kwargs.items()) {
    if (std::find(accepted.begin(), accepted.end(), key) == accepted.end()) unknown.push_back("'" + key + "'");
  }
  if (!unknown.empty()) {
    if (accepted.empty()) {
      fail_input("lr_scheduler_kwargs: lr_scheduler_type {} takes no arguments, got {}", name,
                 fmt::join(unknown, ", "));
    }
    fail_input("lr_scheduler_kwargs: lr_scheduler_type {} does not take {} (it takes {})", name,
               fmt::join(unknown, ", "), fmt::join(accepted, ", "));
  }
  // A number, or nothing for an absent key or null (Python's None: the default).
  const auto number = [&](const char* key) -> std::optional<double> {
    const auto it = kwargs.find(key);
    if (it == kwargs.end() || it->is_null()) return std::nullopt;
    if (!it->is_number()) fail_input("lr_scheduler_kwargs: {} must be a number, got {}", key, it->dump());
    const double value = it->get<double>();
    if (!std::isfinite(value)) fail_input("lr_scheduler_kwargs: {} must be finite, got {}", key, value);
    return value;
  };

  if (const auto cycles = number("num_cycles")) spec.num_cycles = *cycles;
  if (type == LrSchedule::kPolynomial) {
    spec.lr_end = number("lr_end").value_or(spec.lr_end);
    spec.power = number("power").value_or(spec.power);
    if (!(learning_rate > spec.lr_end)) {
      fail_input("lr_scheduler_kwargs: lr_end ({}) must be smaller than the learning rate ({})", spec.lr_end,
                 learning_rate);
    }
  }
  if (type == LrSchedule::kInverseSqrt) {
    spec.timescale = number("timescale");
    if (spec.timescale && !(*spec.timescale > 0)) {
      fail_input("lr_scheduler_kwargs: timescale must be > 0, got {}", *spec.timescale);
    }
  }
  if (type == LrSchedule::kCosineWithMinLr) {
    const std::optional<double> min_lr = number("min_lr");
    const std::optional<double> min_lr_rate = number("min_lr_rate");
    if (min_lr && min_lr_rate) fail_input("lr_scheduler_kwargs: give only one of min_lr and min_lr_rate");
    if (!min_lr && !min_lr_rate) {
      fail_input("lr_scheduler_type cosine_with_min_lr needs min_lr or min_lr_rate: pass --lr_scheduler_kwargs "
                 "'{{\"min_lr_rate\": 0.1}}'");
    }
    spec.min_lr_rate = min_lr ? *min_lr / learning_rate : *min_lr_rate;
  }
  return spec;
}

double lr_multiplier(const LrScheduleSpec& schedule, std::int64_t step, std::int64_t total_steps,
                     std::int64_t warmup_steps) {
  if (schedule.type == LrSchedule::kConstant) return 1.0;
  if (step < warmup_steps) return warmup_fraction(step, warmup_steps);
  switch (schedule.type) {
    case LrSchedule::kConstant:
    case LrSchedule::kConstantWithWarmup:
      return 1.0;
    case LrSchedule::kLinear:
      return std::max(0.0, static_cast<double>(total_steps - step) /
                               static_cast<double>(std::max<std::int64_t>(1, total_steps - warmup_steps)));
    case LrSchedule::kCosine:
    case LrSchedule::kCosineWithMinLr: {
      // cosine is cosine_with_min_lr with min_lr_rate 0, where the floor changes no bit.
      const double progress = decay_progress(step, total_steps, warmup_steps);
      const double factor = 0.5 * (1.0 + std::cos(std::numbers::pi * schedule.num_cycles * 2.0 * progress));
      if (schedule.type == LrSchedule::kCosine) return std::max(0.0, factor);
      return std::max(0.0, unfused_product(factor, 1.0 - schedule.min_lr_rate) + schedule.min_lr_rate);
    }
    case LrSchedule::kCosineWithRestarts: {
      const double progress = decay_progress(step, total_steps, warmup_steps);
      if (progress >= 1.0) return 0.0;
      return std::max(0.0, 0.5 * (1.0 + std::cos(std::numbers::pi * python_mod(schedule.num_cycles * progress, 1.0))));
    }
    case LrSchedule::kPolynomial: {
      const std::int64_t decay_steps = total_steps - warmup_steps;
      // Past the end; and at the end of a run that is all warm-up, where Python divides by zero.
      if (step > total_steps || decay_steps <= 0) return schedule.lr_end / schedule.lr_init;
      const double lr_range = schedule.lr_init - schedule.lr_end;
      const double pct_remaining = 1.0 - static_cast<double>(step - warmup_steps) / static_cast<double>(decay_steps);
      const double decay = unfused_product(lr_range, std::pow(pct_remaining, schedule.power)) + schedule.lr_end;
      return decay / schedule.lr_init;
    }
    case LrSchedule::kInverseSqrt: {
      const double timescale =
          schedule.timescale.value_or(warmup_steps > 0 ? static_cast<double>(warmup_steps) : 10000.0);
      const double shift = timescale - static_cast<double>(warmup_steps);
      return 1.0 / std::sqrt((static_cast<double>(step) + shift) / timescale);
    }
  }
  return 1.0;
}

}  // namespace shmtrain::optim
