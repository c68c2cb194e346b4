#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>
#include <unordered_map>

#include "label_rules.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::task {
namespace {

using data::Example;
using data::LabelSet;
using data::RawLabel;
using data::Table;
using data::ValueKind;
using data::Value;
using data::Record;
using data::join_names;

enum class LabelType { integer, number, text };

struct TypedLabel {
  LabelType type = LabelType::text;
  std::int64_t integer = 0;
  double number = 0.0;
};

std::optional<std::int64_t> parse_integer(std::string_view text) {
  if (text.starts_with('+')) text.remove_prefix(1);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parse_number(std::string_view text) {
  if (text.starts_with('+')) text.remove_prefix(1);
  double value = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

TypedLabel type_of(const RawLabel& label, const std::string& source) {
  const Value& v = label.value;
  switch (v.kind) {
    case ValueKind::missing:
      fail_input("{}:{}: no \"label\" key", source, label.line);
    case ValueKind::null:
      fail_input("{}:{}: label is null", source, label.line);
    case ValueKind::other:
      fail_input("{}:{}: label {} is not a string or a number", source, label.line, v.text);
    case ValueKind::string:
    case ValueKind::boolean:
      if (v.text.empty()) fail_input("{}:{}: empty label", source, label.line);
      return {};
    case ValueKind::integer:
      if (const auto i = parse_integer(v.text)) return {LabelType::integer, *i, static_cast<double>(*i)};
      return {};
    case ValueKind::real:
      if (const auto x = parse_number(v.text)) return {LabelType::number, 0, *x};
      return {};
    case ValueKind::untyped:
      if (v.text.empty()) fail_input("{}:{}: empty label", source, label.line);
      if (const auto i = parse_integer(v.text)) return {LabelType::integer, *i, static_cast<double>(*i)};
      if (const auto x = parse_number(v.text)) return {LabelType::number, 0, *x};
      return {};
  }
  return {};
}

}  // namespace

LabelRules infer_label_rules(const std::vector<RawLabel>& labels, const std::string& source) {
  bool all_integer = true;
  bool all_numeric = true;
  std::set<std::int64_t> integers;
  std::set<std::string> texts;
  for (const RawLabel& label : labels) {
    const TypedLabel typed = type_of(label, source);
    all_integer = all_integer && typed.type == LabelType::integer;
    all_numeric = all_numeric && typed.type != LabelType::text;
    if (typed.type == LabelType::integer) integers.insert(typed.integer);
    texts.insert(label.value.text);
  }
  LabelRules rules;
  if (all_integer) {
    rules.integer_names = true;
    for (const std::int64_t value : integers) rules.set.names.push_back(std::to_string(value));
  } else if (all_numeric) {
    rules.set.regression = true;
  } else {
    rules.set.names.assign(texts.begin(), texts.end());
  }
  return rules;
}

void apply_label_rules(const LabelRules& rules, const std::vector<RawLabel>& labels,
                       const std::string& source, std::vector<Example>& examples) {
  std::unordered_map<std::string, std::int32_t> ids;
  for (std::size_t id = 0; id < rules.set.names.size(); ++id)
    ids.emplace(rules.set.names[id], static_cast<std::int32_t>(id));
  for (std::size_t i = 0; i < labels.size() && i < examples.size(); ++i) {
    const RawLabel& label = labels[i];
    const TypedLabel typed = type_of(label, source);
    if (rules.set.regression) {
      if (typed.type == LabelType::text) {
        fail_input("{}:{}: label '{}' is not a number (the training labels are regression targets)", source,
                   label.line, label.value.text);
      }
      examples[i].target = static_cast<float>(typed.number);
      continue;
    }
    if (rules.class_indices) {
      const auto classes = static_cast<std::int64_t>(rules.set.names.size());
      if (typed.type != LabelType::integer || typed.integer < 0 || typed.integer >= classes) {
        fail_input("{}:{}: label '{}' is not a class index 0..{} (the ClassLabel {})", source, label.line,
                   label.value.text, classes - 1, join_names(rules.set.names));
      }
      examples[i].label = static_cast<std::int32_t>(typed.integer);
      continue;
    }
    const auto id =
        ids.find(rules.integer_names ? (typed.type == LabelType::integer ? std::to_string(typed.integer) : "")
                                     : label.value.text);
    if (id == ids.end()) {
      fail_input("{}:{}: label '{}' is not one of the training labels ({})", source, label.line,
                 label.value.text, join_names(rules.set.names));
    }
    examples[i].label = id->second;
  }
}

LabelRules class_label_rules(std::vector<std::string> names) {
  LabelRules rules;
  rules.set.names = std::move(names);
  rules.class_indices = true;
  return rules;
}

std::vector<RawLabel> column_labels(const Table& table, std::size_t column) {
  std::vector<RawLabel> labels;
  labels.reserve(table.records.size());
  for (const Record& record : table.records) labels.push_back(RawLabel{record.line, record.fields[column]});
  return labels;
}

}  // namespace shmtrain::task
