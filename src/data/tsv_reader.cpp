// Tab-separated values as GLUE distributes them: no quoting (Python's csv.QUOTE_NONE, as
// Hugging Face's glue loader reads them), so a quote character is text.
#include <string_view>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/table.hpp"

namespace shmtrain::data {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (;;) {
    const std::size_t tab = line.find('\t', start);
    if (tab == std::string_view::npos) {
      fields.push_back(line.substr(start));
      return fields;
    }
    fields.push_back(line.substr(start, tab - start));
    start = tab + 1;
  }
}

}  // namespace

Table read_tsv(const std::filesystem::path& path, std::string_view what, bool has_header,
               const std::vector<std::string>& columns) {
  const std::string text = read_data_file(path, what);
  Table table;
  table.source = path.string();
  const std::vector<std::string_view> lines = split_lines(text);
  if (lines.empty()) fail_input("{}: the file is empty; expected {}", table.source, what);

  std::size_t first = 0;
  if (has_header) {
    for (std::string_view name : split_tabs(lines[0])) table.columns.emplace_back(name);
    first = 1;
  } else {
    table.columns = columns;
  }
  table.records.reserve(lines.size() - first);
  for (std::size_t i = first; i < lines.size(); ++i) {
    const std::vector<std::string_view> fields = split_tabs(lines[i]);
    if (fields.size() != table.columns.size()) {
      fail_input("{}:{}: expected {} tab-separated fields ({}), found {}", table.source, i + 1,
                 table.columns.size(), join_names(table.columns, 20), fields.size());
    }
    Record& record = table.records.emplace_back();
    record.line = i + 1;
    record.fields.reserve(fields.size());
    for (std::string_view field : fields)
      record.fields.push_back(Value{std::string(field), ValueKind::untyped});
  }
  if (table.records.empty()) {
    fail_input("{}: no rows{}; expected {}", table.source, has_header ? " after the header line" : "", what);
  }
  return table;
}

}  // namespace shmtrain::data
