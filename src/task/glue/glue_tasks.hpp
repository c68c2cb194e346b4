#pragma once
// Internal to data: the GLUE tasks as GLUE's download script distributes them, with the
// label names and order of Hugging Face `datasets` glue features (task_data.hpp lists them).
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "shmtrain/data/dataset.hpp"
#include "shmtrain/text/tokenizer.hpp"

namespace shmtrain::task {

struct GlueTask {
  std::string name;                  // "mrpc"
  std::string title;                 // "MRPC", for messages
  std::string dev_file;              // "dev.tsv"; mnli: "dev_matched.tsv"
  std::vector<std::string> columns;  // a header-less file's columns (CoLA); empty: the file has a header
  std::string text_a;
  std::string text_b;  // "" for single-sentence tasks
  std::string label_column;
  std::vector<std::string> label_values;  // as written in the file, in id order; empty: regression
  std::vector<std::string> label_names;   // id -> name
  // The text columns of the Hub's nyu-mll/glue parquet files (run_glue.py's task_to_keys);
  // their label column is "label", a ClassLabel index (-1 in the test splits).
  std::string hub_text_a;
  std::string hub_text_b;

  data::LabelSet label_set() const;
};

const std::vector<GlueTask>& glue_tasks();
const GlueTask* find_glue_task(std::string_view name);

// GLUE's test split as its download script writes it (test.tsv; MNLI test_matched.tsv): a
// header naming the same text columns as the task's other files, an index, no labels.
data::Dataset load_glue_test(const GlueTask& task, const std::filesystem::path& file, const text::Tokenizer& tokenizer,
                             std::size_t max_seq_length);

// A split of nyu-mll/glue from the Hub's parquet files, its first max_samples rows, tokenized,
// labelled unless `with_labels` is false (a test split).
data::Dataset load_glue_parquet(const GlueTask& task, const std::vector<std::filesystem::path>& shards,
                                const text::Tokenizer& tokenizer, std::size_t max_seq_length,
                                std::optional<std::size_t> max_samples, bool with_labels);

// DIR/train.tsv or DIR/<dev_file>, its first max_samples rows, tokenized and labelled.
data::Dataset load_glue_split(const GlueTask& task, const std::filesystem::path& file,
                        const text::Tokenizer& tokenizer, std::size_t max_seq_length,
                        std::optional<std::size_t> max_samples);

}  // namespace shmtrain::task
