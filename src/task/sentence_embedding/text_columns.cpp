#include "text_columns.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/parquet_split.hpp"

namespace shmtrain::task {

bool is_score_column(const std::string& name) { return name == "label" || name == "score"; }

double read_score(const data::Table& table, const data::Record& record, std::size_t column) {
  const data::Value& v = record.fields[column];
  if (v.kind == data::ValueKind::missing || v.kind == data::ValueKind::null || v.text.empty()) {
    fail_input("{}:{}: column '{}' has no value: a scored pair needs its score", table.source, record.line,
               table.columns[column]);
  }
  const bool number = v.kind == data::ValueKind::integer || v.kind == data::ValueKind::real ||
                      (v.kind == data::ValueKind::untyped && !v.text.empty());
  double score = 0;
  if (number) {
    const auto [end, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), score);
    if (ec == std::errc() && end == v.text.data() + v.text.size() && std::isfinite(score)) return score;
  }
  fail_input("{}:{}: column '{}' holds '{}', not a score: a scored pair needs a number", table.source, record.line,
             table.columns[column], v.text);
}

const std::string& read_text(const data::Table& table, const data::Record& record, std::size_t column) {
  const data::Value& v = record.fields[column];
  if (v.kind == data::ValueKind::missing || v.kind == data::ValueKind::null) {
    fail_input("{}:{}: column '{}' is missing: every example needs a text in each of the columns {}", table.source,
               record.line, table.columns[column], data::join_names(table.columns));
  }
  if (v.kind != data::ValueKind::untyped && v.kind != data::ValueKind::string) {
    fail_input("{}:{}: column '{}' must hold text", table.source, record.line, table.columns[column]);
  }
  return v.text;
}

data::Table read_split(const std::vector<std::filesystem::path>* shards, const std::filesystem::path& file,
                       const char* flag, const std::string& needs) {
  if (shards != nullptr && !shards->empty()) return data::json_lines_table(data::read_parquet_split(*shards, flag).rows);
  if (file.empty()) {
    fail_input("{} needs {} ({}; .csv, .json/.jsonl or .parquet) or --dataset_name", needs.substr(0, needs.find(':')), flag,
               needs.substr(needs.find(':') + 2));
  }
  return data::read_table_file(file, fmt::format("the {} file", flag), flag);
}

}  // namespace shmtrain::task
