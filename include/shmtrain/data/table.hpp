#pragma once
// A data file read into named columns, each value remembering where it
// came from (its physical line) and, for JSON, its type, so the label rules can tell the
// JSON number 1 from the JSON string "1".
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shmtrain::data {

enum class ValueKind {
  untyped,  // a CSV/TSV field: text whose type is inferred (integer, number, text)
  string,   // a JSON string
  integer,  // a JSON integer
  real,     // a JSON number with a fraction or exponent (1.0, 2.5, 1e3)
  boolean,  // a JSON true/false (text "true"/"false")
  null,     // a JSON null
  missing,  // a JSON object without this key
  other,    // a JSON array or object (text: its JSON)
};

struct Value {
  std::string text;
  ValueKind kind = ValueKind::untyped;
};

struct Record {
  std::size_t line = 0;       // 1-based physical line where the record starts
  std::vector<Value> fields;  // one per Table::columns
};

// A label as a file holds it, before a task's rules type it (task/glue/label_rules.hpp).
struct RawLabel {
  std::size_t line = 0;
  Value value;
};

struct Table {
  std::string source;                // the file, for messages
  std::vector<std::string> columns;  // header names (CoLA: names given by the task)
  std::vector<Record> records;

  std::optional<std::size_t> find_column(std::string_view name) const;
  // find_column or InputError "SOURCE: no column 'name' (columns: ...); <hint>".
  std::size_t column(std::string_view name, std::string_view hint) const;
};

// The whole file as bytes, with a UTF-8 byte order mark dropped. InputError naming the path
// and `what` it should be when the file is missing or unreadable.
std::string read_data_file(const std::filesystem::path& path, std::string_view what);

// The file's extension lower-cased (".CSV" -> ".csv"): what the readers dispatch on.
std::string lower_extension(const std::filesystem::path& path);

// A table file by its extension: .csv, .json/.jsonl (JSON Lines) or .parquet; InputError
// naming the path, the extension and `flag` (the option that gave it) for any other.
Table read_table_file(const std::filesystem::path& path, std::string_view what, std::string_view flag);

// A list of texts from a file: .txt, one a line (a CRLF's CR dropped), or a table file's
// `column` (read_table_file; `flag` names the option that gave the file, `column_flag` the one
// that names the column). InputError naming the file and line of a cell that is not text.
std::vector<std::string> read_text_list(const std::filesystem::path& path, const std::string& column,
                                        std::string_view flag, std::string_view column_flag);

// Tab-separated values, no quoting (GLUE's files). CRLF line ends are accepted and blank
// lines at the end of the file skipped; any other line must have one field per column.
// With a header the columns are the first line; without, `columns` names them.
Table read_tsv(const std::filesystem::path& path, std::string_view what, bool has_header,
               const std::vector<std::string>& columns = {});

// RFC 4180 comma-separated values with a header line: double-quoted fields may hold commas,
// line breaks and "" for a quote. Blank lines are skipped (as pandas does).
Table read_csv(const std::filesystem::path& path, std::string_view what);

// "a, b, c", at most `limit` items then ", ...".
std::string join_names(const std::vector<std::string>& names, std::size_t limit = 12);

}  // namespace shmtrain::data
