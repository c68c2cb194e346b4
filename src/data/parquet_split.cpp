#include "shmtrain/data/parquet_split.hpp"

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data {
namespace {

std::vector<std::string> keys_of(const JsonLines& lines) {
  std::vector<std::string> keys;
  if (lines.rows.empty()) return keys;
  for (const auto& [key, value] : lines.rows.front().object.items()) keys.push_back(key);
  return keys;
}

}  // namespace

ParquetRows read_parquet_split(const std::vector<std::filesystem::path>& shards, std::string_view what) {
  if (shards.empty()) fail_input("{}: no parquet files", what);
  ParquetRows split = read_parquet(shards.front(), what);
  if (shards.size() > 1) split.rows.source = fmt::format("{} (+{} more shards)", shards.front().string(), shards.size() - 1);
  const std::vector<std::string> columns = keys_of(split.rows);
  for (std::size_t i = 1; i < shards.size(); ++i) {
    ParquetRows shard = read_parquet(shards[i], what);
    if (!shard.rows.rows.empty() && !columns.empty() && keys_of(shard.rows) != columns) {
      fail_input("{}: its columns ({}) differ from {}'s ({})", shards[i].string(), join_names(keys_of(shard.rows)),
                 shards.front().string(), join_names(columns));
    }
    for (JsonRow& row : shard.rows.rows) {
      row.line = split.rows.rows.size() + 1;
      split.rows.rows.push_back(std::move(row));
    }
  }
  return split;
}

}  // namespace shmtrain::data
