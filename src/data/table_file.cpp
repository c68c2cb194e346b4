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

}  // namespace shmtrain::data
