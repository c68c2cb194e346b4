#include "shmtrain/cli/train_option_table.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::cli {
namespace {

using train::TrainOptions;

std::string_view type_name(OptionType type) {
  switch (type) {
    case OptionType::kBool: return "a boolean";
    case OptionType::kSwitch: return "true, false or auto";
    case OptionType::kInt: return "an integer";
    case OptionType::kFloat: return "a number";
    case OptionType::kString: return "a string";
    case OptionType::kPath: return "a path (string)";
  }
  return "?";
}

std::string toml_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      default: out += c;
    }
  }
  return out + "\"";
}

std::string toml_float(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

// Range rules of one option, checked as it is set, so the message names where the value came from.
struct Range {
  std::optional<double> min;
  std::optional<double> max;
  bool min_exclusive = false;
};

Range at_least(double min) { return Range{min, std::nullopt, false}; }
Range above(double min) { return Range{min, std::nullopt, true}; }
Range between(double min, double max) { return Range{min, max, false}; }

template <typename T>
struct Field;  // the conversion from OptionValue to a member of type T

template <>
struct Field<bool> {
  static constexpr OptionType kType = OptionType::kBool;
  static bool from(const OptionValue& value, std::string_view where, std::string_view name) {
    if (const bool* b = std::get_if<bool>(&value)) return *b;
    fail_input("{}: {} must be true or false", where, name);
  }
  static std::string show(bool value) { return value ? "true" : "false"; }
};

template <>
struct Field<train::Bf16Mode> {
  static constexpr OptionType kType = OptionType::kSwitch;
  static train::Bf16Mode from(const OptionValue& value, std::string_view where, std::string_view name) {
    if (const bool* b = std::get_if<bool>(&value)) return *b ? train::Bf16Mode::kOn : train::Bf16Mode::kOff;
    if (const std::string* s = std::get_if<std::string>(&value); s != nullptr && *s == "auto") {
      return train::Bf16Mode::kAuto;
    }
    fail_input("{}: {} must be true, false or \"auto\"", where, name);
  }
  static std::string show(train::Bf16Mode value) {
    return value == train::Bf16Mode::kAuto ? "\"auto\"" : value == train::Bf16Mode::kOn ? "true" : "false";
  }
};

template <>
struct Field<LrSchedule> {
  static constexpr OptionType kType = OptionType::kString;
  static LrSchedule from(const OptionValue& value, std::string_view where, std::string_view name) {
    const std::string* s = std::get_if<std::string>(&value);
    if (s == nullptr) fail_input("{}: {} must be a string", where, name);
    try {
      return parse_lr_schedule(*s);
    } catch (const InputError& e) {
      fail_input("{}: {}", where, e.what());
    }
  }
  static std::string show(LrSchedule value) { return toml_string(to_string(value)); }
};

template <>
struct Field<std::int64_t> {
  static constexpr OptionType kType = OptionType::kInt;
  static std::int64_t from(const OptionValue& value, std::string_view where, std::string_view name) {
    if (const std::int64_t* i = std::get_if<std::int64_t>(&value)) return *i;
    fail_input("{}: {} must be an integer", where, name);
  }
  static std::string show(std::int64_t value) { return std::to_string(value); }
};

template <>
struct Field<double> {
  static constexpr OptionType kType = OptionType::kFloat;
  static double from(const OptionValue& value, std::string_view where, std::string_view name) {
    if (const double* d = std::get_if<double>(&value)) {
      if (!std::isfinite(*d)) fail_input("{}: {} must be a finite number", where, name);
      return *d;
    }
    if (const std::int64_t* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
    fail_input("{}: {} must be a number", where, name);
  }
  static std::string show(double value) { return toml_float(value); }
};

template <>
struct Field<std::string> {
  static constexpr OptionType kType = OptionType::kString;
  static std::string from(const OptionValue& value, std::string_view where, std::string_view name) {
    if (const std::string* s = std::get_if<std::string>(&value)) return *s;
    fail_input("{}: {} must be a string", where, name);
  }
  static std::string show(const std::string& value) { return toml_string(value); }
};

template <>
struct Field<std::filesystem::path> {
  static constexpr OptionType kType = OptionType::kPath;
  static std::filesystem::path from(const OptionValue& value, std::string_view where, std::string_view name) {
    return Field<std::string>::from(value, where, name);
  }
  static std::string show(const std::filesystem::path& value) { return toml_string(value.string()); }
};

template <typename T>
void check_range(const T& value, const Range& range, std::string_view where, std::string_view name) {
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    const double x = static_cast<double>(value);
    if (range.min && (range.min_exclusive ? x <= *range.min : x < *range.min)) {
      fail_input("{}: {} must be {} {}, got {}", where, name, range.min_exclusive ? ">" : ">=", *range.min, value);
    }
    if (range.max && x > *range.max) fail_input("{}: {} must be <= {}, got {}", where, name, *range.max, value);
  }
}

// A member is a plain value or an optional one ("unset" means: decided elsewhere, e.g. by
// config.json); both are set and shown through the value type's Field.
template <typename T>
struct Unwrap {
  using Value = T;
  static const T* get(const T& member) { return &member; }
};
template <typename T>
struct Unwrap<std::optional<T>> {
  using Value = T;
  static const T* get(const std::optional<T>& member) { return member ? &*member : nullptr; }
};

template <typename Member>
OptionSpec option(std::string name, Member TrainOptions::*member, std::string group, std::string help,
                  Range range = {}) {
  using T = typename Unwrap<Member>::Value;
  OptionSpec spec;
  spec.name = name;
  spec.type = Field<T>::kType;
  spec.group = std::move(group);
  spec.help = std::move(help);
  spec.set = [member, name, range](TrainOptions& options, const OptionValue& value, std::string_view where) {
    T parsed = Field<T>::from(value, where, name);
    check_range(parsed, range, where, name);
    options.*member = std::move(parsed);
  };
  spec.show = [member](const TrainOptions& options) -> std::optional<std::string> {
    const T* value = Unwrap<Member>::get(options.*member);
    if (value == nullptr) return std::nullopt;
    if constexpr (std::is_same_v<T, std::filesystem::path> || std::is_same_v<T, std::string>) {
      if (value->empty()) return std::nullopt;  // an unset path or name
    }
    return Field<T>::show(*value);
  };
  return spec;
}

std::vector<OptionSpec> make_table() {
  const Range positive = above(0);
  const Range non_negative = at_least(0);
  const Range probability = between(0, 1);
  const Range at_least_one = at_least(1);
  const std::string model = "model", data = "data", run = "run", optim = "optimisation", log = "logging",
                    compute = "compute";
  return {
      option("model_name_or_path", &TrainOptions::model_name_or_path, model,
             "Hugging Face model folder: config.json, model.safetensors, vocab.txt (or tokenizer.json)"),
      option("config_name", &TrainOptions::config_name, model,
             "config.json (or its folder) to train from randomly initialised weights instead"),
      option("tokenizer_name", &TrainOptions::tokenizer_name, model,
             "vocab.txt, tokenizer.json or their folder, when not in the model folder"),
      option("do_lower_case", &TrainOptions::do_lower_case, model,
             "lower-case text before WordPiece (default: tokenizer_config.json, else the vocabulary's case)"),
      option("hidden_dropout_prob", &TrainOptions::hidden_dropout_prob, model,
             "override config.json's hidden_dropout_prob", probability),
      option("attention_probs_dropout_prob", &TrainOptions::attention_probs_dropout_prob, model,
             "override config.json's attention_probs_dropout_prob", probability),

      option("task_name", &TrainOptions::task_name, data,
             "GLUE task read from --data_dir: mrpc, sst2, qqp, qnli, rte, cola, stsb, mnli; or squad (question "
             "answering, SQuAD v1.1 JSON files)"),
      option("data_dir", &TrainOptions::data_dir, data,
             "folder with the GLUE task's train.tsv and dev.tsv (squad: train-v1.1.json and dev-v1.1.json)"),
      option("train_file", &TrainOptions::train_file, data,
             "custom training data: .csv, .tsv, .json/.jsonl (text) or pre-tokenized .jsonl (input_ids); with "
             "--task_name squad a SQuAD JSON file"),
      option("validation_file", &TrainOptions::validation_file, data, "evaluation data, same forms"),
      option("max_seq_length", &TrainOptions::max_seq_length, data,
             "longest sequence after tokenization; longer pairs are truncated longest-first, squad contexts cut "
             "into windows (default 128; 384 for squad)",
             at_least(3)),
      option("pad_to_max_length", &TrainOptions::pad_to_max_length, data,
             "pad every batch to max_seq_length (run_glue's default); false pads to the batch's longest"),
      option("max_train_samples", &TrainOptions::max_train_samples, data, "use the first N training examples",
             at_least_one),
      option("max_eval_samples", &TrainOptions::max_eval_samples, data, "use the first N evaluation examples",
             at_least_one),
      option("doc_stride", &TrainOptions::doc_stride, data,
             "squad: tokens shared by consecutive windows of a context longer than max_seq_length allows",
             non_negative),
      option("n_best_size", &TrainOptions::n_best_size, data,
             "squad: start and end candidates per window when picking the answer", at_least_one),
      option("max_answer_length", &TrainOptions::max_answer_length, data, "squad: longest answer, in tokens",
             at_least_one),

      option("output_dir", &TrainOptions::output_dir, run,
             "where the model, metrics.jsonl and checkpoints go (required)"),
      option("overwrite_output_dir", &TrainOptions::overwrite_output_dir, run,
             "train even if output_dir holds another run (its checkpoints are removed)"),
      option("do_train", &TrainOptions::do_train, run, "train"),
      option("do_eval", &TrainOptions::do_eval, run, "evaluate on the validation set"),
      option("resume_from_checkpoint", &TrainOptions::resume_from_checkpoint, run,
             "continue from this checkpoint folder (output_dir/checkpoint-N)"),
      option("dry_run", &TrainOptions::dry_run, run,
             "print the resolved configuration, data sizes and step counts, then stop"),

      option("num_train_epochs", &TrainOptions::num_train_epochs, optim, "epochs (may be fractional)", positive),
      option("max_steps", &TrainOptions::max_steps, optim, "optimizer steps; overrides num_train_epochs when > 0"),
      option("per_device_train_batch_size", &TrainOptions::per_device_train_batch_size, optim,
             "examples per worker per micro-batch", at_least_one),
      option("per_device_eval_batch_size", &TrainOptions::per_device_eval_batch_size, optim,
             "examples per worker per evaluation batch", at_least_one),
      option("gradient_accumulation_steps", &TrainOptions::gradient_accumulation_steps, optim,
             "micro-batches per optimizer step", at_least_one),
      option("learning_rate", &TrainOptions::learning_rate, optim, "peak learning rate of AdamW", positive),
      option("lr_scheduler_type", &TrainOptions::lr_scheduler_type, optim,
             "linear, constant, constant_with_warmup or cosine"),
      option("warmup_ratio", &TrainOptions::warmup_ratio, optim, "fraction of the steps spent warming up",
             probability),
      option("warmup_steps", &TrainOptions::warmup_steps, optim, "warm-up steps; overrides warmup_ratio when > 0",
             non_negative),
      option("weight_decay", &TrainOptions::weight_decay, optim,
             "AdamW weight decay (not applied to biases and LayerNorm weights)", non_negative),
      option("adam_beta1", &TrainOptions::adam_beta1, optim, "AdamW beta1", probability),
      option("adam_beta2", &TrainOptions::adam_beta2, optim, "AdamW beta2", probability),
      option("adam_epsilon", &TrainOptions::adam_epsilon, optim, "AdamW epsilon", positive),
      option("max_grad_norm", &TrainOptions::max_grad_norm, optim, "clip the global gradient norm; 0 disables",
             non_negative),
      option("seed", &TrainOptions::seed, optim, "seed of initialisation, shuffling and dropout", non_negative),
      option("shuffle", &TrainOptions::shuffle, optim, "shuffle the training data each epoch"),

      option("logging_steps", &TrainOptions::logging_steps, log,
             "log loss and learning rate to metrics.jsonl every N steps", at_least_one),
      option("eval_steps", &TrainOptions::eval_steps, log, "also evaluate every N steps; 0: only at the end",
             non_negative),
      option("save_steps", &TrainOptions::save_steps, log, "save a checkpoint every N steps; 0: never",
             non_negative),
      option("save_total_limit", &TrainOptions::save_total_limit, log,
             "keep at most N checkpoints, removing the oldest", at_least_one),
      option("disable_tqdm", &TrainOptions::disable_tqdm, log, "no live progress line, even on a terminal"),

      option("threads", &TrainOptions::threads, compute, "compute threads per worker (default: its cores)",
             at_least_one),
      option("shard_optimizer", &TrainOptions::shard_optimizer, compute,
             "reduce-scatter the gradients; each worker updates and keeps AdamW state for its 1/P of the "
             "parameters, then the parameters are all-gathered"),
      option("bf16", &TrainOptions::bf16, compute,
             "bf16 mixed precision (torch.autocast): the encoder's GEMMs in bf16, accumulation, normalisations, "
             "loss, master weights and AdamW in fp32. true needs AVX512-BF16 or AMX; auto: bf16 where the CPU "
             "has it, else fp32"),
      option("ddp_bf16_grads", &TrainOptions::ddp_bf16_grads, compute,
             "the workers exchange bf16 gradients (half the bytes), summed in fp32 and rounded once"),
  };
}

}  // namespace

const std::vector<OptionSpec>& train_option_table() {
  static const std::vector<OptionSpec> table = make_table();
  return table;
}

const OptionSpec* find_train_option(std::string_view name) {
  const auto& table = train_option_table();
  const auto it = std::find_if(table.begin(), table.end(), [&](const OptionSpec& s) { return s.name == name; });
  return it == table.end() ? nullptr : &*it;
}

std::string train_options_to_toml(const train::TrainOptions& options) {
  std::string out;
  std::string group;
  for (const OptionSpec& spec : train_option_table()) {
    const std::optional<std::string> value = spec.show(options);
    if (!value) continue;
    if (spec.group != group) {
      out += fmt::format("{}# {}\n", out.empty() ? "" : "\n", spec.group);
      group = spec.group;
    }
    out += fmt::format("{} = {}\n", spec.name, *value);
  }
  return out;
}

OptionValue parse_option_text(const OptionSpec& spec, std::string_view text) {
  const std::string flag = "--" + spec.name;
  const std::string value(text);
  switch (spec.type) {
    case OptionType::kSwitch:
      if (value == "auto") return value;
      [[fallthrough]];
    case OptionType::kBool: {
      std::string lower;
      for (const char c : value) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      if (lower.empty() || lower == "true" || lower == "1" || lower == "yes") return true;
      if (lower == "false" || lower == "0" || lower == "no") return false;
      break;
    }
    case OptionType::kInt: {
      std::int64_t parsed = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
      if (error == std::errc{} && end == value.data() + value.size() && !value.empty()) return parsed;
      break;
    }
    case OptionType::kFloat: {
      double parsed = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
      if (error == std::errc{} && end == value.data() + value.size() && !value.empty()) return parsed;
      break;
    }
    case OptionType::kString:
    case OptionType::kPath:
      return value;
  }
  fail_input("{}: '{}' is not {}", flag, value, type_name(spec.type));
}

}  // namespace shmtrain::cli
