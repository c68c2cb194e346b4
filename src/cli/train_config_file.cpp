// The --config TOML file of `shmtrain train`, and the rules between options that no single
// option can check.
#include <filesystem>
#include <limits>
#include <system_error>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "shmtrain/cli/train_option_table.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/train/hub_sources.hpp"

namespace shmtrain::cli {
namespace {

std::string where(const std::filesystem::path& path, const toml::source_region& region) {
  return fmt::format("{}:{}", path.string(), region.begin.line);
}

// What the file wrote, as an OptionValue; nullopt for tables, arrays, dates.
std::optional<OptionValue> value_of(const toml::node& node) {
  if (const auto* b = node.as_boolean()) return OptionValue{b->get()};
  if (const auto* i = node.as_integer()) return OptionValue{i->get()};
  if (const auto* f = node.as_floating_point()) return OptionValue{f->get()};
  if (const auto* s = node.as_string()) return OptionValue{s->get()};
  return std::nullopt;
}

}  // namespace

void apply_config_file(const std::filesystem::path& path, train::TrainOptions& options) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    fail_input("{}: config file not found (--config takes a TOML file such as configs/demo.toml)", path.string());
  }
  toml::table table;
  try {
    table = toml::parse_file(path.string());
  } catch (const toml::parse_error& e) {
    fail_input("{}:{}: not valid TOML: {}", path.string(), e.source().begin.line, e.description());
  }
  for (const auto& [key, node] : table) {
    const std::string location = where(path, node.source());
    const OptionSpec* spec = find_train_option(key.str());
    if (spec == nullptr) {
      fail_input("{}: unknown key '{}' (`shmtrain train --help` lists the options)", location, key.str());
    }
    const std::optional<OptionValue> value = value_of(node);
    if (!value) {
      fail_input("{}: {} must be a single value, not a {}", location, key.str(),
                 node.is_table() ? "table" : node.is_array() ? "list" : "date or time");
    }
    spec->set(options, *value, location);
  }
}

namespace {

// "no", "steps" or "epoch"; `key` names the option in the message.
void check_strategy(const std::string& value, const char* key) {
  if (value != "no" && value != "steps" && value != "epoch") {
    fail_input("{} '{}' is not a strategy: use no, steps or epoch", key, value);
  }
}

}  // namespace

void resolve_task_defaults(train::TrainOptions& options) {
  // --dataset_name squad is run_qa.py's question answering, glue its GLUE task, ...
  if (options.task_name.empty() && !options.dataset_name.empty()) {
    options.task_name = train::dataset_task_name(options.dataset_name, options.dataset_config_name);
  }
  if (!options.max_seq_length) options.max_seq_length = options.seq_length();
  // TrainingArguments' strategies, as the step counts and epoch flags the trainer runs by.
  if (!options.eval_strategy.empty()) {
    check_strategy(options.eval_strategy, "eval_strategy");
    if (options.eval_strategy == "no") {
      options.eval_steps = 0;
      options.eval_steps_ratio = 0;
    } else {
      options.do_eval = true;  // as TrainingArguments: a strategy asks for evaluation
      if (options.eval_strategy == "epoch") {
        options.eval_each_epoch = true;
        options.eval_steps = 0;
        options.eval_steps_ratio = 0;
      } else if (options.eval_steps == 0 && options.eval_steps_ratio == 0) {
        // eval_steps defaults to logging_steps
        options.eval_steps = options.logging_steps;
        options.eval_steps_ratio = options.logging_steps_ratio;
      }
    }
  }
  check_strategy(options.save_strategy, "save_strategy");
  if (options.save_strategy != "steps") {
    options.save_steps = 0;
    options.save_steps_ratio = 0;
  }
  options.save_each_epoch = options.save_strategy == "epoch";
  check_strategy(options.logging_strategy, "logging_strategy");
  options.log_each_epoch = options.logging_strategy == "epoch";
  if (options.logging_strategy != "steps") {
    options.logging_steps = std::numeric_limits<std::int64_t>::max();
    options.logging_steps_ratio = 0;
  } else if (options.logging_steps == 0 && options.logging_steps_ratio == 0) {
    fail_input("logging_strategy steps needs logging_steps of at least 1 (or a ratio in (0, 1) of the total steps)");
  }
}

void validate_train_options(const train::TrainOptions& options) {
  if (options.output_dir.empty()) fail_input("output_dir is not set: pass --output_dir DIR or set it in the config");
  if (options.model_name_or_path.empty() && options.config_name.empty()) {
    fail_input(
        "no model: pass --model_name_or_path (a Hugging Face model folder) or --config_name (a config.json "
        "to train from random weights)");
  }
  if (!options.model_name_or_path.empty() && !options.config_name.empty()) {
    fail_input("model_name_or_path and config_name are both set: give one (config_name starts from random weights)");
  }
  if (options.model_name_or_path.empty() && options.tokenizer_name.empty()) {
    fail_input("config_name needs tokenizer_name (a vocab.txt, tokenizer.json or their folder)");
  }
  if (!options.do_train && !options.do_eval && !options.do_predict && !options.dry_run) {
    fail_input("do_train, do_eval and do_predict are all false: nothing to do (pass --do_train, --do_eval or "
               "--do_predict, as to run_glue.py)");
  }
  if (!options.do_train && !options.resume_from_checkpoint.empty()) {
    fail_input("resume_from_checkpoint needs do_train");
  }
  if (options.max_steps <= 0 && options.num_train_epochs <= 0) {
    fail_input("num_train_epochs must be > 0 when max_steps is not set");
  }
  if (options.question_answering() && options.doc_stride >= options.seq_length()) {
    fail_input("doc_stride {} must be smaller than max_seq_length {}: consecutive windows of a context overlap "
               "by doc_stride tokens",
               options.doc_stride, options.seq_length());
  }
  if (options.load_best_model_at_end || options.early_stopping_patience > 0) {
    const bool evaluates = options.eval_steps > 0 || options.eval_steps_ratio > 0 || options.eval_each_epoch;
    if (!evaluates) {
      fail_input("{} needs evaluations during training: set eval_strategy steps or epoch",
                 options.load_best_model_at_end ? "load_best_model_at_end" : "early_stopping_patience");
    }
  }
  if (options.load_best_model_at_end) {
    // Ratios are checked once the total steps are known (step_plan.cpp).
    const bool ratios = options.eval_steps_ratio > 0 || options.save_steps_ratio > 0;
    const bool same = (options.eval_each_epoch && options.save_each_epoch) || ratios ||
                      (options.eval_steps > 0 && options.save_steps > 0 && options.save_steps % options.eval_steps == 0);
    if (!same) {
      fail_input("load_best_model_at_end needs checkpoints where evaluations are: save_strategy as eval_strategy, "
                 "and save_steps a multiple of eval_steps");
    }
  }
  static_cast<void>(options.lr_schedule());  // lr_scheduler_kwargs fit lr_scheduler_type and learning_rate
  if (options.max_steps == 0 || options.max_steps < -1) {
    fail_input("max_steps must be a positive number of steps, or -1 to use num_train_epochs; got {}",
               options.max_steps);
  }
}

}  // namespace shmtrain::cli
