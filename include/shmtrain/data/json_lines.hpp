#pragma once
// JSON Lines files, one JSON object per line (Hugging Face's "json" loader
// as run_glue.py uses it). Objects keep their key order (nlohmann::ordered_json), which
// decides the text columns of a custom file.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "shmtrain/data/table.hpp"

namespace shmtrain::data {

struct JsonRow {
  std::size_t line = 0;  // 1-based physical line
  nlohmann::ordered_json object;
};

struct JsonLines {
  std::string source;
  std::vector<JsonRow> rows;
};

// Every non-blank line parsed; InputError "FILE:LINE: ..." for a line that is not valid
// JSON or not an object, and "FILE: ..." for a file with no objects.
JsonLines read_json_lines(const std::filesystem::path& path, std::string_view what);

// The rows as a table: the columns are the keys of the first object; a later object
// without a key gets a ValueKind::missing value there, and keys not in the first are ignored.
Table json_lines_table(JsonLines lines);

// A JSON value as a table value (a null pointer: missing).
Value json_value(const nlohmann::ordered_json* value);

}  // namespace shmtrain::data
