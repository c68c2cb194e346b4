#pragma once
// A split of a Hugging Face dataset as the Hub stores it: one or more parquet shards
// (train-00000-of-00003.parquet, ...) read in shard order as one table of rows.
#include <filesystem>
#include <string_view>
#include <vector>

#include "shmtrain/data/parquet.hpp"

namespace shmtrain::data {

// The rows of every shard, in order; each row's `line` its 1-based row number in the split,
// the source the first shard (with "+N more" when there are several), the features the first
// shard's. InputError: no shards, a shard the reader refuses (naming it), shards whose columns
// differ.
ParquetRows read_parquet_split(const std::vector<std::filesystem::path>& shards, std::string_view what);

}  // namespace shmtrain::data
