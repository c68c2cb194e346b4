#pragma once
// The one table of `shmtrain train`'s options: each TrainOptions field declared once with its
// name (the TOML key and the --flag), type, group and help. The config file, the command line
// and the resolved-config dump all go through it, so a key can never exist in one and not the
// other. Precedence: TrainOptions' defaults < the --config file < the command line.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "shmtrain/train/train_options.hpp"

namespace shmtrain::cli {

// A value as the config file or the command line gives it, before it is checked against the
// option's type.
using OptionValue = std::variant<bool, std::int64_t, double, std::string>;

// kSwitch: a boolean that also takes "auto" (--bf16); a bare --flag means true.
enum class OptionType { kBool, kSwitch, kInt, kFloat, kString, kPath };

struct OptionSpec {
  std::string name;
  OptionType type;
  std::string group;
  std::string help;
  // Stores `value`; throws InputError "<where>: <name> ..." for a value of the wrong type or
  // out of range (a negative batch size, a probability above 1, ...). `where` names the
  // source: "configs/demo.toml:12" or "--learning_rate".
  std::function<void(train::TrainOptions&, const OptionValue& value, std::string_view where)> set;
  // The value as a TOML literal, or nullopt when unset (an optional with no value).
  std::function<std::optional<std::string>(const train::TrainOptions&)> show;
};

const std::vector<OptionSpec>& train_option_table();

// nullptr when there is no such option.
const OptionSpec* find_train_option(std::string_view name);

// Parses a command-line value by the option's type ("true"/"false" and also 1/0/yes/no for
// bools, as HF's argument parser; an empty text is true for a bool: `--do_train`). Throws
// InputError naming the flag.
OptionValue parse_option_text(const OptionSpec& spec, std::string_view text);

// Applies every key of a TOML file. Throws InputError "FILE:LINE: ..." for a syntax error, an
// unknown key, a table where a value belongs, or a value of the wrong type.
void apply_config_file(const std::filesystem::path& path, train::TrainOptions& options);

// Sets the options left unset whose default depends on another option, after all sources
// were applied: max_seq_length (128, or run_qa.py's 384 for --task_name squad).
void resolve_task_defaults(train::TrainOptions& options);

// Checks rules between options (a data source given, warmup_ratio in [0, 1], doc_stride below
// max_seq_length, ...) after all sources were applied. Throws InputError naming the options.
void validate_train_options(const train::TrainOptions& options);

// The resolved options as TOML, grouped and in table order; unset optionals are left out.
// Saved with every checkpoint and the final model, printed by --dry_run.
std::string train_options_to_toml(const train::TrainOptions& options);

// {"options": {name: value}, "defaults": {name: value}}: each set option as the resolved
// config shows it (strings without their quotes), for run_info.json.
nlohmann::json train_option_values(const train::TrainOptions& options);

// One line per report_to integration that shmtrain does not call (wandb, mlflow, ...).
std::vector<std::string> report_to_notes(const train::TrainOptions& options);

}  // namespace shmtrain::cli
