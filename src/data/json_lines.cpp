#include "shmtrain/data/json_lines.hpp"

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/json_error.hpp"
#include "shmtrain/io/json_nesting.hpp"

namespace shmtrain::data {
namespace {

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

}  // namespace

JsonLines read_json_lines(const std::filesystem::path& path, std::string_view what) {
  const std::string text = read_data_file(path, what);
  JsonLines out;
  out.source = path.string();
  std::size_t start = 0;
  std::size_t line = 0;
  while (start < text.size()) {
    ++line;
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view content(text.data() + start, end - start);
    start = end + 1;
    if (is_blank(content)) continue;
    JsonRow& row = out.rows.emplace_back();
    row.line = line;
    // The file:line name is formatted only for a row that fails the bound.
    if (io::json_nesting_overflow(content) != std::string_view::npos) {
      io::check_json_nesting(content, fmt::format("{}:{}", out.source, line));
    }
    try {
      row.object = nlohmann::ordered_json::parse(content);
    } catch (const nlohmann::json::exception& e) {
      fail_input("{}:{}: not valid JSON: {}", out.source, line, io::json_error_text(e.what()));
    }
    if (!row.object.is_object()) {
      fail_input("{}:{}: expected one JSON object per line (JSON Lines), found {}", out.source, line,
                 row.object.type_name());
    }
  }
  if (out.rows.empty())
    fail_input("{}: no rows (the file holds no JSON object); expected {}", out.source, what);
  return out;
}

Value json_value(const nlohmann::ordered_json* value) {
  if (value == nullptr) return Value{"", ValueKind::missing};
  switch (value->type()) {
    case nlohmann::ordered_json::value_t::string:
      return Value{value->get<std::string>(), ValueKind::string};
    case nlohmann::ordered_json::value_t::number_integer:
    case nlohmann::ordered_json::value_t::number_unsigned:
      return Value{value->dump(), ValueKind::integer};
    case nlohmann::ordered_json::value_t::number_float:
      return Value{value->dump(), ValueKind::real};
    case nlohmann::ordered_json::value_t::boolean:
      return Value{value->dump(), ValueKind::boolean};
    case nlohmann::ordered_json::value_t::null:
      return Value{"null", ValueKind::null};
    default:
      return Value{value->dump(), ValueKind::other};
  }
}

Table json_lines_table(JsonLines lines) {
  Table table;
  table.source = std::move(lines.source);
  for (const auto& item : lines.rows.front().object.items()) table.columns.push_back(item.key());
  table.records.reserve(lines.rows.size());
  for (JsonRow& row : lines.rows) {
    Record& record = table.records.emplace_back();
    record.line = row.line;
    record.fields.reserve(table.columns.size());
    for (const std::string& column : table.columns) {
      const auto it = row.object.find(column);
      record.fields.push_back(json_value(it == row.object.end() ? nullptr : &*it));
    }
    row.object = nullptr;  // free each object once read: large files hold hundreds of thousands
  }
  return table;
}

}  // namespace shmtrain::data
