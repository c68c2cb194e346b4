#pragma once
// run_mlm.py's data before tokenization: the texts of a file or a Hub dataset split, or rows
// that come tokenized.
//   .txt                     one text per line (Hugging Face's "text" loader: blank lines are
//                            texts too; "\n", "\r\n" and "\r" end a line)
//   .csv, .json/.jsonl,      the "text" column, else the first column (run_mlm's rule); a
//   .parquet, Hub splits     value that is not a string is an error naming the file and line
//   .json/.jsonl with        pre-tokenized rows: input_ids (token_type_ids, attention_mask
//   "input_ids"              optional) and optionally "labels", a label per token (-100: none),
//                            which the run uses as they are, without masking
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "shmtrain/data/dataset.hpp"

namespace shmtrain::task {

struct MlmText {
  std::size_t line = 0;  // 1-based line (or row of a parquet split), for messages
  std::string text;
};

struct MlmSource {
  std::string source;  // the file, for messages
  bool pretokenized = false;
  std::vector<MlmText> texts;            // text sources
  std::vector<data::Example> examples;   // pre-tokenized rows (token_labels set when given)
};

// `shards` (a Hub split, may be null or empty) or else `path`; `flag` names the option in messages.
MlmSource read_mlm_source(const std::vector<std::filesystem::path>* shards, const std::filesystem::path& path,
                          const char* flag);

// Rows [from, to) of a source (run_mlm's train[:p%] / train[p%:] slices).
MlmSource slice_source(const MlmSource& source, std::size_t from, std::size_t to);
std::size_t source_rows(const MlmSource& source);

}  // namespace shmtrain::task
