#include "shmtrain/data/pretokenized.hpp"

#include <limits>
#include <string>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data {
namespace {

using Json = nlohmann::ordered_json;

// The integers of array `key` of row, each within [0, max_value]; `present` false when absent.
std::vector<std::int32_t> int_array(const JsonLines& lines, const JsonRow& row, const char* key,
                                    std::int64_t max_value, bool& present) {
  std::vector<std::int32_t> out;
  const auto it = row.object.find(key);
  present = it != row.object.end();
  if (!present) return out;
  if (!it->is_array()) {
    fail_input("{}:{}: \"{}\" must be an array of integers, found {}", lines.source, row.line, key,
               it->type_name());
  }
  out.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& value = (*it)[i];
    bool ok = false;
    std::int64_t v = 0;
    if (value.is_number_unsigned()) {
      const auto u = value.get<std::uint64_t>();
      ok = u <= static_cast<std::uint64_t>(max_value);
      v = ok ? static_cast<std::int64_t>(u) : 0;
    } else if (value.is_number_integer()) {
      v = value.get<std::int64_t>();
      ok = v >= 0 && v <= max_value;
    }
    if (!ok) {
      fail_input("{}:{}: {}[{}] = {} is not an integer in [0, {}]", lines.source, row.line, key, i,
                 value.dump(), max_value);
    }
    out.push_back(static_cast<std::int32_t>(v));
  }
  return out;
}

}  // namespace

bool is_pretokenized(const JsonLines& lines) {
  return !lines.rows.empty() && lines.rows.front().object.contains("input_ids");
}

void read_pretokenized(const JsonLines& lines, std::size_t max_seq_length, std::vector<Example>& examples,
                       std::vector<RawLabel>& labels) {
  constexpr std::int64_t kMaxId = std::numeric_limits<std::int32_t>::max();
  examples.clear();
  labels.clear();
  examples.reserve(lines.rows.size());
  labels.reserve(lines.rows.size());
  for (const JsonRow& row : lines.rows) {
    Example& example = examples.emplace_back();
    bool present = false;
    example.input_ids = int_array(lines, row, "input_ids", kMaxId, present);
    if (!present) fail_input("{}:{}: no \"input_ids\" (the first row has them)", lines.source, row.line);
    const std::size_t length = example.input_ids.size();
    if (length == 0) fail_input("{}:{}: input_ids is empty", lines.source, row.line);
    if (length > max_seq_length) {
      fail_input(
          "{}:{}: {} tokens, more than --max_seq_length {}; pre-tokenized rows are not truncated: shorten "
          "them or raise --max_seq_length",
          lines.source, row.line, length, max_seq_length);
    }
    example.token_type_ids = int_array(lines, row, "token_type_ids", kMaxId, present);
    if (!present) example.token_type_ids.assign(length, 0);
    if (example.token_type_ids.size() != length) {
      fail_input("{}:{}: token_type_ids has {} values, input_ids {}; they must be as long", lines.source,
                 row.line, example.token_type_ids.size(), length);
    }
    example.attention_mask = int_array(lines, row, "attention_mask", 1, present);
    if (!present) example.attention_mask.assign(length, 1);
    if (example.attention_mask.size() != length) {
      fail_input("{}:{}: attention_mask has {} values, input_ids {}; they must be as long", lines.source,
                 row.line, example.attention_mask.size(), length);
    }
    const auto label = row.object.find("label");
    labels.push_back(RawLabel{row.line, json_value(label == row.object.end() ? nullptr : &*label)});
  }
}

}  // namespace shmtrain::data
