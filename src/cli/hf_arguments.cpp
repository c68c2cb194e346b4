#include "hf_arguments.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "trainer_flags.hpp"

namespace shmtrain::cli {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// A token that is a flag rather than a value: "--x"; "-5" or "-1e-3" is a (negative) value.
bool looks_like_flag(std::string_view token) {
  if (token.size() < 2 || token[0] != '-') return false;
  const char c = token[1];
  return !(c >= '0' && c <= '9') && c != '.';
}

// One typed flag, split into its underscore name and its =value when written inline.
struct TypedFlag {
  std::string typed;  // as typed, without =value
  std::string name;   // dashes of the name turned into underscores
  std::optional<std::string> inline_value;
};

TypedFlag split_flag(std::string_view token) {
  TypedFlag flag;
  const std::size_t eq = token.find('=');
  flag.typed = std::string(token.substr(0, eq));
  if (eq != std::string_view::npos) flag.inline_value = std::string(token.substr(eq + 1));
  flag.name = flag.typed.substr(2);
  std::replace(flag.name.begin(), flag.name.end(), '-', '_');
  return flag;
}

class Rewriter {
 public:
  Rewriter(std::span<const std::string> args, const std::map<std::string, FlagArity>& known, bool trainer_flags)
      : args_(args), known_(known), trainer_flags_(trainer_flags) {}

  ArgumentRewrite run() {
    while (next_ < args_.size()) {
      const std::string& token = args_[next_++];
      if (token == "--") {  // everything after it is positional, as argparse has it
        out_.args.insert(out_.args.end(), args_.begin() + static_cast<std::ptrdiff_t>(next_ - 1), args_.end());
        break;
      }
      if (token.size() < 3 || token.rfind("--", 0) != 0) {
        out_.args.push_back(token);  // -h, positionals: CLI11's to judge
        continue;
      }
      take(split_flag(token));
    }
    if (!problems_.empty()) {
      fail_input("{}{}", fmt::join(problems_, "; "),
                 unknown_ ? " (`shmtrain train --help` lists every flag)" : "");
    }
    return std::move(out_);
  }

 private:
  void take(const TypedFlag& flag) {
    if (flag.name == "help" || flag.name == "version") {
      out_.args.push_back("--" + flag.name);
      return;
    }
    if (const auto it = known_.find(flag.name); it != known_.end()) {
      emit_known(flag, flag.name, it->second, false);
      return;
    }
    if (flag.name.rfind("no_", 0) == 0) {
      const std::string positive = flag.name.substr(3);
      if (const auto it = known_.find(positive);
          it != known_.end() && (it->second == FlagArity::kOptionalBool || it->second == FlagArity::kOptionalSwitch)) {
        emit_known(flag, positive, it->second, true);
        return;
      }
      if (const TrainerFlag* trainer = trainer_flags_ ? find_trainer_flag(positive) : nullptr;
          trainer != nullptr && trainer->arity == FlagArity::kOptionalBool) {
        if (flag.inline_value) problems_.push_back(fmt::format("{} takes no value", flag.typed));
        judge_trainer_flag(*trainer, flag.typed, "false");
        return;
      }
    }
    if (const TrainerFlag* trainer = trainer_flags_ ? find_trainer_flag(flag.name) : nullptr) {
      const std::optional<std::string> value = value_of(flag, trainer->arity);
      if (value) judge_trainer_flag(*trainer, flag.typed, *value);
      return;
    }
    // argparse's allow_abbrev, which HfArgumentParser keeps: a prefix of exactly one flag is that
    // flag (run_swag's README spells --overwrite_output).
    if (const std::optional<std::string> full = only_flag_starting(flag.name)) {
      TypedFlag expanded = flag;
      expanded.name = *full;
      take(expanded);
      return;
    }
    unknown(flag);
  }

  std::optional<std::string> only_flag_starting(const std::string& prefix) const {
    std::vector<std::string> matches;
    for (const auto& [name, arity] : known_) {
      if (name.starts_with(prefix)) matches.push_back(name);
    }
    if (trainer_flags_) {
      for (const TrainerFlag& t : trainer_flags()) {
        if (std::string_view(t.name).starts_with(prefix)) matches.emplace_back(t.name);
      }
    }
    if (matches.size() != 1) return std::nullopt;
    return matches.front();
  }

  // The value of a flag: inline, the next token, or (a boolean) true when the next token is no
  // boolean word. nullopt after recording a problem.
  std::optional<std::string> value_of(const TypedFlag& flag, FlagArity arity) {
    if (arity == FlagArity::kValue || arity == FlagArity::kNumber) {
      std::optional<std::string> value = flag.inline_value;
      if (!value && next_ < args_.size() && !looks_like_flag(args_[next_])) value = args_[next_++];
      if (!value) problems_.push_back(fmt::format("{} needs a value", flag.typed));
      if (value && value->empty() && arity == FlagArity::kNumber) {
        problems_.push_back(fmt::format("{}: '' is not a number", flag.typed));
        return std::nullopt;
      }
      return value;
    }
    const auto word = [&](const std::string& text) -> std::optional<std::string> {
      if (arity == FlagArity::kOptionalSwitch && lower(text) == "auto") return std::string("auto");
      if (const std::optional<bool> b = parse_bool_word(text)) return std::string(*b ? "true" : "false");
      return std::nullopt;
    };
    // As argparse's nargs="?": the next token is the value unless it is a flag.
    std::optional<std::string> text = flag.inline_value;
    if (!text && next_ < args_.size() && !looks_like_flag(args_[next_])) text = args_[next_++];
    if (!text) return std::string("true");
    if (std::optional<std::string> value = word(*text)) return value;
    problems_.push_back(fmt::format("{}: '{}' is not {}", flag.typed, *text,
                                    arity == FlagArity::kOptionalSwitch ? "true, false or auto" : "true or false"));
    return std::nullopt;
  }

  void emit_known(const TypedFlag& flag, const std::string& name, FlagArity arity, bool negated) {
    if (negated) {
      if (flag.inline_value) problems_.push_back(fmt::format("{} takes no value", flag.typed));
      out_.args.push_back("--" + name + "=false");
      return;
    }
    std::optional<std::string> value = value_of(flag, arity);
    if (!value) return;
    // torchrun's --nproc_per_node auto: here, one worker per socket, the default (0).
    if (name == "nproc_per_node" && *value == "auto") value = "0";
    // Inline, so that CLI11 never takes a value such as -0.1 for a flag. An empty value goes
    // apart: CLI11 reads "--name=" as no value and takes the next word for it.
    if (value->empty()) {
      out_.args.insert(out_.args.end(), {"--" + name, ""});
      return;
    }
    out_.args.push_back("--" + name + "=" + *value);
  }

  void judge_trainer_flag(const TrainerFlag& flag, const std::string& typed, const std::string& value) {
    if (flag.harmless == nullptr || flag.harmless(value)) {
      if (!flag.note.empty()) {
        out_.notes.push_back(fmt::format("{}{} has no effect here: {}", typed,
                                         flag.arity == FlagArity::kValue ? " " + (value.empty() ? "\"\"" : value) : std::string(), flag.note));
      }
      return;
    }
    problems_.push_back(std::string(flag.refusal));
  }

  void unknown(const TypedFlag& flag) {
    unknown_ = true;
    std::vector<std::string> names;
    for (const auto& [name, arity] : known_) names.push_back(name);
    if (trainer_flags_) {
      for (const TrainerFlag& t : trainer_flags()) names.emplace_back(t.name);
    }
    const std::string suggestion = closest_name(flag.name, names);
    problems_.push_back(suggestion.empty() ? fmt::format("unknown flag {}", flag.typed)
                                           : fmt::format("unknown flag {} (did you mean --{}?)", flag.typed, suggestion));
    // Its value, if it has one, is not a second mistake.
    if (!flag.inline_value && next_ < args_.size() && !looks_like_flag(args_[next_])) ++next_;
  }

  std::span<const std::string> args_;
  const std::map<std::string, FlagArity>& known_;
  bool trainer_flags_;
  std::size_t next_ = 0;
  ArgumentRewrite out_;
  std::vector<std::string> problems_;
  bool unknown_ = false;
};

}  // namespace

std::optional<bool> parse_bool_word(std::string_view text) {
  const std::string word = lower(text);
  if (word == "yes" || word == "true" || word == "t" || word == "y" || word == "1") return true;
  if (word == "no" || word == "false" || word == "f" || word == "n" || word == "0") return false;
  return std::nullopt;
}

std::string closest_name(std::string_view name, std::span<const std::string> candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, name.size() / 3) + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t d = edit_distance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

ArgumentRewrite rewrite_hf_arguments(std::span<const std::string> args, const std::map<std::string, FlagArity>& known,
                                     bool trainer_flags) {
  return Rewriter(args, known, trainer_flags).run();
}

}  // namespace shmtrain::cli
