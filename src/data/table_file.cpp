#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/parquet.hpp"
#include "shmtrain/data/table.hpp"

namespace shmtrain::data {

Table read_table_file(const std::filesystem::path& path, std::string_view what, std::string_view flag) {
  const std::string ext = lower_extension(path);
  if (ext == ".csv") return read_csv(path, what);
  if (ext == ".json" || ext == ".jsonl") return json_lines_table(read_json_lines(path, what));
  if (ext == ".parquet") return json_lines_table(read_parquet(path, what).rows);
  fail_input("{}: unsupported file type '{}'; {} takes a .csv, .json, .jsonl or .parquet file", path.string(), ext,
             flag);
}

std::vector<std::string> read_text_list(const std::filesystem::path& path, const std::string& column,
                                        std::string_view flag, std::string_view column_flag) {
  std::vector<std::string> texts;
  if (lower_extension(path) == ".txt") {
    const std::string bytes = read_data_file(path, fmt::format("the {} file (a text a line)", flag));
    for (std::size_t begin = 0; begin < bytes.size();) {
      std::size_t end = bytes.find('\n', begin);
      if (end == std::string::npos) end = bytes.size();
      std::string line = bytes.substr(begin, end - begin);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      texts.push_back(std::move(line));
      begin = end + 1;
    }
    return texts;
  }
  const Table table = read_table_file(path, fmt::format("the {} file", flag), flag);
  const std::size_t c = table.column(column, fmt::format("pass {} the column of texts", column_flag));
  for (const Record& record : table.records) {
    const Value& v = record.fields[c];
    if (v.kind != ValueKind::untyped && v.kind != ValueKind::string) {
      fail_input("{}:{}: column '{}' must hold text", table.source, record.line, column);
    }
    texts.push_back(v.text);
  }
  return texts;
}

}  // namespace shmtrain::data
