#include "shmtrain/task/mlm/mlm_texts.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/parquet.hpp"
#include "shmtrain/data/parquet_split.hpp"
#include "shmtrain/data/pretokenized.hpp"
#include "shmtrain/data/table.hpp"

namespace shmtrain::task {
namespace {

// One text per line; a last line without its newline counts, an empty file has no texts.
std::vector<MlmText> text_lines(const std::string& bytes) {
  std::vector<MlmText> out;
  std::size_t begin = 0;
  while (begin < bytes.size()) {
    const std::size_t end = std::min(bytes.find_first_of("\r\n", begin), bytes.size());
    out.push_back({out.size() + 1, bytes.substr(begin, end - begin)});
    if (end == bytes.size()) break;
    begin = end + 1;
    if (bytes[end] == '\r' && begin < bytes.size() && bytes[begin] == '\n') ++begin;
  }
  return out;
}

// run_mlm: the "text" column, else the first one.
std::vector<MlmText> column_texts(const data::Table& table) {
  if (table.columns.empty()) fail_input("{}: no columns", table.source);
  const std::size_t column = table.find_column("text").value_or(0);
  std::vector<MlmText> out;
  out.reserve(table.records.size());
  for (const data::Record& record : table.records) {
    const data::Value& value = record.fields[column];
    if (value.kind != data::ValueKind::untyped && value.kind != data::ValueKind::string) {
      fail_input("{}:{}: column '{}' must hold text", table.source, record.line, table.columns[column]);
    }
    out.push_back({record.line, value.text});
  }
  return out;
}

// Pre-tokenized rows, their "labels" (a label per token) kept where given.
void read_tokenized(const data::JsonLines& lines, MlmSource& out) {
  std::vector<data::RawLabel> ignored;
  data::read_pretokenized(lines, std::numeric_limits<std::size_t>::max(), out.examples, ignored);
  for (std::size_t i = 0; i < lines.rows.size(); ++i) {
    const auto& object = lines.rows[i].object;
    const auto labels = object.find("labels");
    if (labels == object.end() || labels->is_null()) continue;
    const std::size_t n = out.examples[i].input_ids.size();
    if (!labels->is_array() || labels->size() != n) {
      fail_input("{}:{}: \"labels\" must be a list of {} integers, one per token (-100 where nothing is predicted)",
                 lines.source, lines.rows[i].line, n);
    }
    std::vector<std::int32_t>& token_labels = out.examples[i].token_labels;
    for (const auto& label : *labels) {
      if (!label.is_number_integer() || label.get<std::int64_t>() < data::kIgnoredLabel ||
          (label.get<std::int64_t>() < 0 && label.get<std::int64_t>() != data::kIgnoredLabel) ||
          label.get<std::int64_t>() > std::numeric_limits<std::int32_t>::max()) {
        fail_input("{}:{}: \"labels\" holds {}; a label is a token id or -100", lines.source, lines.rows[i].line,
                   label.dump());
      }
      token_labels.push_back(label.get<std::int32_t>());
    }
  }
}

MlmSource from_json_rows(data::JsonLines lines) {
  MlmSource out;
  out.source = lines.source;
  if (data::is_pretokenized(lines)) {
    out.pretokenized = true;
    read_tokenized(lines, out);
  } else {
    out.texts = column_texts(data::json_lines_table(std::move(lines)));
  }
  return out;
}

}  // namespace

MlmSource read_mlm_source(const std::vector<std::filesystem::path>* shards, const std::filesystem::path& path,
                          const char* flag) {
  if (shards != nullptr && !shards->empty()) return from_json_rows(data::read_parquet_split(*shards, flag).rows);
  const std::string ext = data::lower_extension(path);
  const std::string what = fmt::format("the {} file (.txt, .csv, .json, .jsonl or .parquet)", flag);
  if (ext == ".parquet") return from_json_rows(data::read_parquet(path, what).rows);
  if (ext == ".json" || ext == ".jsonl") return from_json_rows(data::read_json_lines(path, what));
  MlmSource out;
  out.source = path.string();
  if (ext == ".txt") {
    out.texts = text_lines(data::read_data_file(path, what));
  } else if (ext == ".csv") {
    out.texts = column_texts(data::read_csv(path, what));
  } else {
    fail_input("{}: unsupported file type '{}'; {} takes a .txt, .csv, .json, .jsonl or .parquet file", path.string(),
               ext, flag);
  }
  return out;
}

std::size_t source_rows(const MlmSource& source) {
  return source.pretokenized ? source.examples.size() : source.texts.size();
}

MlmSource slice_source(const MlmSource& source, std::size_t from, std::size_t to) {
  MlmSource out;
  out.source = source.source;
  out.pretokenized = source.pretokenized;
  to = std::min(to, source_rows(source));
  from = std::min(from, to);
  if (source.pretokenized) {
    out.examples.assign(source.examples.begin() + static_cast<std::ptrdiff_t>(from),
                        source.examples.begin() + static_cast<std::ptrdiff_t>(to));
  } else {
    out.texts.assign(source.texts.begin() + static_cast<std::ptrdiff_t>(from),
                     source.texts.begin() + static_cast<std::ptrdiff_t>(to));
  }
  return out;
}

}  // namespace shmtrain::task
