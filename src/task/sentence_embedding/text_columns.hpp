#pragma once
// Internal to task: the readers sentence-transformers' tables share (the sentence-embedding and
// reranking tasks): a text cell, a score cell, the label columns, and a split from a file or a
// Hub dataset's parquet shards.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "shmtrain/data/table.hpp"

namespace shmtrain::task {

// sentence-transformers' label columns (its data collator's valid_label_columns).
bool is_score_column(const std::string& name);

// The number in `column` of `record`; InputError naming the file, line and column otherwise.
double read_score(const data::Table& table, const data::Record& record, std::size_t column);

// The text in `column` of `record`; InputError naming the file, line and column otherwise.
const std::string& read_text(const data::Table& table, const data::Record& record, std::size_t column);

// The split from `shards` when there are any, else from `file` (.csv, .json/.jsonl, .parquet).
// `needs` is "<who>: <the columns it takes>", for the error when neither is given.
data::Table read_split(const std::vector<std::filesystem::path>* shards, const std::filesystem::path& file,
                       const char* flag, const std::string& needs);

}  // namespace shmtrain::task
