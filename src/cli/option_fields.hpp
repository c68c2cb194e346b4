#pragma once
// Internal to cli: how one TrainOptions member becomes an OptionSpec of the option table —
// its value type's conversion from a config or command-line value (Field<T>), its range
// rule, and its TOML form for the resolved-config dump.
#include <cmath>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "shmtrain/cli/train_option_table.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/data/collate.hpp"

namespace shmtrain::cli::option_fields {

using train::TrainOptions;

// Through toml++, which escapes what TOML forbids raw (control characters, quotes, backslashes).
inline std::string toml_string(std::string_view text) {
  std::ostringstream out;
  const toml::value<std::string> value{std::string(text)};
  out << toml::default_formatter{value, toml::format_flags::none};
  return out.str();
}

inline std::string toml_float(double value) {
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

inline Range at_least(double min) { return Range{min, std::nullopt, false}; }
inline Range above(double min) { return Range{min, std::nullopt, true}; }
inline Range between(double min, double max) { return Range{min, max, false}; }

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
struct Field<optim::LrSchedule> {
  static constexpr OptionType kType = OptionType::kString;
  static optim::LrSchedule from(const OptionValue& value, std::string_view where, std::string_view name) {
    const std::string* s = std::get_if<std::string>(&value);
    if (s == nullptr) fail_input("{}: {} must be a string", where, name);
    try {
      return optim::parse_lr_schedule(*s);
    } catch (const InputError& e) {
      fail_input("{}: {}", where, e.what());
    }
  }
  static std::string show(optim::LrSchedule value) { return toml_string(to_string(value)); }
};

template <>
struct Field<data::Padding> {
  static constexpr OptionType kType = OptionType::kString;
  static data::Padding from(const OptionValue& value, std::string_view where, std::string_view name) {
    const std::string* s = std::get_if<std::string>(&value);
    if (s == nullptr) fail_input("{}: {} must be a string", where, name);
    return data::parse_padding(*s, fmt::format("{}: {}", where, name));
  }
  static std::string show(data::Padding value) { return toml_string(data::padding_name(value)); }
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

// TrainingArguments' logging_steps, eval_steps and save_steps: a whole number of steps, or a
// ratio in (0, 1) of the total steps (its `ratio` member; the step count is then 0).
inline OptionSpec steps_option(std::string name, std::int64_t TrainOptions::*steps, double TrainOptions::*ratio,
                               std::string group, std::string help) {
  OptionSpec spec;
  spec.name = name;
  spec.type = OptionType::kFloat;
  spec.group = std::move(group);
  spec.help = std::move(help);
  spec.set = [=](TrainOptions& options, const OptionValue& value, std::string_view where) {
    const double x = Field<double>::from(value, where, name);
    constexpr double kMaxSteps = 1e15;
    if (x > 0 && x < 1) {
      options.*ratio = x;
      options.*steps = 0;
    } else if (x == 0 || (x >= 1 && x <= kMaxSteps && x == std::floor(x))) {
      options.*ratio = 0;
      options.*steps = static_cast<std::int64_t>(x);
    } else {
      fail_input("{}: {} must be a whole number of steps or a ratio in (0, 1) of the total steps, got {}", where,
                 name, x);
    }
  };
  spec.show = [=](const TrainOptions& options) -> std::optional<std::string> {
    if (options.*ratio > 0) return toml_float(options.*ratio);
    return std::to_string(options.*steps);
  };
  return spec;
}

}  // namespace shmtrain::cli::option_fields
