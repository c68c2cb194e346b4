#pragma once
// Internal to cli: a command line as Hugging Face's HfArgumentParser and torchrun accept it,
// rewritten into the one spelling CLI11 is given, so that a user's run_glue.py / run_qa.py /
// run_ner.py command runs with only the program name changed.
//   --foo-bar            is --foo_bar (argparse turns every _ of a field into both spellings)
//   --flag, --flag true|false|yes|no|t|f|y|n|1|0, --no_flag, --no-flag   for every boolean
//   --flag=value         as --flag value
//   --flag ""            an empty value, as argparse takes it (--text_a "", --run_name ""); a
//                        number's empty value is an error, as argparse's type=int/float has it
// Trainer's flags that mean nothing here (--no_cuda, --ddp_backend ccl, ...) are taken out
// with a note saying why; flags whose effect shmtrain does not compute (--fp16, ...) are an
// error naming what to use instead; an unknown flag is an error naming every unknown flag in
// the order typed, each with the closest known one.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shmtrain::cli {

// How a known flag takes its value.
enum class FlagArity {
  kOptionalBool,    // --flag [true|false|...]
  kOptionalSwitch,  // the same, or --flag auto (--bf16)
  kValue,           // --flag VALUE ("" included)
  kNumber,          // --flag VALUE, an integer or a float: not ""
};

struct ArgumentRewrite {
  std::vector<std::string> args;   // for CLI11: --name=value / --name VALUE, names with _
  std::vector<std::string> notes;  // one line per flag that has no effect here
};

// `known`: the subcommand's own flags by their underscore name (without --). `trainer_flags`:
// whether Trainer's flags without effect are recognised (the train command). Throws InputError
// for an unknown or refused flag, and for a value-taking flag with no value.
ArgumentRewrite rewrite_hf_arguments(std::span<const std::string> args, const std::map<std::string, FlagArity>& known,
                                     bool trainer_flags);

// HfArgumentParser's string_to_bool: yes/true/t/y/1 and no/false/f/n/0, any case. nullopt when
// `text` is none of them.
std::optional<bool> parse_bool_word(std::string_view text);

// The name of `candidates` closest to `name` by edit distance ("" when none is close enough to
// be a likely typo).
std::string closest_name(std::string_view name, std::span<const std::string> candidates);

}  // namespace shmtrain::cli
