// Command-line text -> a typed option value (train_option_table.hpp's parse_option_text).
#include <charconv>
#include <string>

#include "hf_arguments.hpp"
#include "shmtrain/cli/train_option_table.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::cli {
namespace {

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

}  // namespace

OptionValue parse_option_text(const OptionSpec& spec, std::string_view text) {
  const std::string flag = "--" + spec.name;
  const std::string value(text);
  switch (spec.type) {
    case OptionType::kSwitch:
      if (value == "auto") return value;
      [[fallthrough]];
    case OptionType::kBool: {
      if (value.empty()) return true;
      if (const std::optional<bool> b = parse_bool_word(value)) return *b;
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
