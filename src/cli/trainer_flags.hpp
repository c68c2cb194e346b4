#pragma once
// Internal to cli: the flags of Hugging Face's TrainingArguments and example scripts that
// shmtrain has no option for, and what a pasted command gets for each: a note that it has no
// effect here and why (--no_cuda, --ddp_backend ccl), or, where its value would change the
// results and shmtrain does not compute that, an error naming what to use instead (--fp16).
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "hf_arguments.hpp"

namespace shmtrain::cli {

struct TrainerFlag {
  std::string_view name;  // underscore spelling, without --
  FlagArity arity;
  // Whether `value` ("true"/"false" for a boolean) changes nothing here; nullptr: any value.
  bool (*harmless)(std::string_view value);
  std::string_view note;     // printed for a harmless value ("" prints nothing)
  std::string_view refusal;  // the error for any other value
};

std::span<const TrainerFlag> trainer_flags();

const TrainerFlag* find_trainer_flag(std::string_view name);

}  // namespace shmtrain::cli
