#pragma once
// Learning-rate schedules as Hugging Face's transformers.optimization (get_scheduler, as
// Trainer calls it): the multiplier of the peak learning rate at optimizer step `step`
// (0-based: the LR the step-th update uses; torch's LambdaLR evaluates the same lambda at
// step 0 before the first update). The formulas are those of the get_*_schedule functions,
// operation for operation, so that the learning rates are Trainer's to the last bit.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shmtrain::optim {

enum class LrSchedule {
  kLinear,
  kConstant,
  kConstantWithWarmup,
  kCosine,
  kCosineWithRestarts,
  kPolynomial,
  kInverseSqrt,
  kCosineWithMinLr,
};

// Trainer's lr_scheduler_type names. InputError for any other: Trainer's names that
// shmtrain does not implement (reduce_lr_on_plateau, cosine_warmup_with_min_lr,
// warmup_stable_decay) are refused as such, an unknown name with the list of known ones.
LrSchedule parse_lr_schedule(const std::string& name);
std::string to_string(LrSchedule schedule);

// A schedule with its extra parameters: Trainer's lr_scheduler_kwargs over the defaults of
// the schedule's get_*_schedule function. Each field is used by the schedules named beside it.
struct LrScheduleSpec {
  LrSchedule type = LrSchedule::kLinear;
  // cosine, cosine_with_min_lr: waves of the cosine (0.5: half a wave, down to the minimum);
  // cosine_with_restarts: hard restarts (default 1).
  double num_cycles = 0.5;
  // polynomial: decay from lr_init (the optimizer's learning rate; the multiplier is relative
  // to it) to lr_end, as ((lr_init - lr_end) * remaining^power + lr_end) / lr_init.
  double lr_init = 1.0;
  double lr_end = 1e-7;
  double power = 1.0;
  // inverse_sqrt: unset means num_warmup_steps, or 10000 without warm-up.
  std::optional<double> timescale;
  // cosine_with_min_lr: the floor as a fraction of the peak (min_lr / learning_rate).
  double min_lr_rate = 0.0;
};

// The spec of `type` with lr_scheduler_kwargs applied: a JSON object ("" means {}) with the
// keyword arguments of the schedule's function (cosine: num_cycles; cosine_with_restarts:
// num_cycles; polynomial: lr_end, power; inverse_sqrt: timescale; cosine_with_min_lr:
// num_cycles and one of min_lr, min_lr_rate). InputError for text that is not a JSON object,
// a key the schedule does not take (named, with the keys it takes), a value that is not a
// number, and the cases transformers refuses (polynomial lr_end >= learning_rate;
// cosine_with_min_lr with both or neither of min_lr and min_lr_rate).
// REQUIRES: learning_rate > 0.
LrScheduleSpec make_lr_schedule(LrSchedule type, std::string_view kwargs_json, double learning_rate);

// REQUIRES: total_steps >= 1, warmup_steps >= 0. Steps past total_steps follow the formulas
// too, as LambdaLR does (the cosine comes back up; polynomial stays at lr_end).
double lr_multiplier(const LrScheduleSpec& schedule, std::int64_t step, std::int64_t total_steps,
                     std::int64_t warmup_steps);

}  // namespace shmtrain::optim
