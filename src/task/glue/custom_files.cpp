
#include <algorithm>

#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/parquet_split.hpp"
#include "label_rules.hpp"
#include "shmtrain/task/glue/classification_task.hpp"
#include "shmtrain/data/pretokenized.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/data/table.hpp"
#include "shmtrain/data/tokenize_rows.hpp"

namespace shmtrain::task {
namespace {

using data::Dataset;
using data::Example;
using data::JsonLines;
using data::RawLabel;
using data::Table;
using data::join_names;
using data::read_csv;
using data::read_json_lines;
using data::read_tsv;

// A file read but not yet tokenized: a table of text, or pre-tokenized examples.
struct RawFile {
  std::string source;
  bool pretokenized = false;
  Table table;                    // text files
  std::vector<Example> examples;  // pre-tokenized files, labels unset
  std::vector<RawLabel> labels;   // one per row
  std::vector<std::string> class_names;  // a parquet file's ClassLabel names of its label column
};

// JSON rows (a .json/.jsonl file, or parquet rows): text, or pre-tokenized.
void read_rows(JsonLines lines, std::size_t max_seq_length, RawFile& file) {
  if (is_pretokenized(lines)) {
    file.pretokenized = true;
    read_pretokenized(lines, max_seq_length, file.examples, file.labels);
    return;
  }
  file.table = json_lines_table(std::move(lines));
}

// The label column of a text file. `labels_optional`: a test file may come without it.
void read_labels(RawFile& file, bool labels_optional) {
  if (file.pretokenized) return;
  if (labels_optional && !file.table.find_column("label")) return;
  const std::size_t label = file.table.column("label", "run_glue reads the labels from a column named label");
  file.labels = column_labels(file.table, label);
}

RawFile read_parquet_rows(data::ParquetRows rows, std::size_t max_seq_length, bool labels_optional) {
  RawFile file;
  file.source = rows.rows.source;
  file.class_names = data::parquet_class_names(rows, "label");
  read_rows(std::move(rows.rows), max_seq_length, file);
  read_labels(file, labels_optional);
  return file;
}

// `labels_optional`: a --test_file may come without its label column.
RawFile read_raw_file(const std::filesystem::path& path, const char* flag, std::size_t max_seq_length,
                      bool labels_optional = false) {
  const std::string ext = data::lower_extension(path);
  const std::string what = fmt::format("the {} file (.csv, .tsv, .json, .jsonl or .parquet)", flag);
  if (ext == ".parquet") return read_parquet_rows(data::read_parquet(path, what), max_seq_length, labels_optional);
  RawFile file;
  file.source = path.string();
  if (ext == ".csv" || ext == ".tsv") {
    file.table = ext == ".csv" ? read_csv(path, what) : read_tsv(path, what, true);
  } else if (ext == ".json" || ext == ".jsonl") {
    read_rows(read_json_lines(path, what), max_seq_length, file);
  } else {
    fail_input("{}: unsupported file type '{}'; {} takes a .csv, .tsv, .json, .jsonl or .parquet file", file.source,
               ext, flag);
  }
  read_labels(file, labels_optional);
  return file;
}

// A split of --dataset_name, or else the file of `flag`.
RawFile read_split(const std::vector<std::filesystem::path>* shards, const std::filesystem::path& path,
                   const char* flag, std::size_t max_seq_length, bool labels_optional = false) {
  if (shards == nullptr || shards->empty()) return read_raw_file(path, flag, max_seq_length, labels_optional);
  return read_parquet_rows(data::read_parquet_split(*shards, flag), max_seq_length, labels_optional);
}

// run_glue.py: sentence1 and sentence2 when both exist, else the first two non-label
// columns, or the only one.
std::vector<std::string> text_columns(const Table& table) {
  if (table.find_column("sentence1") && table.find_column("sentence2")) return {"sentence1", "sentence2"};
  std::vector<std::string> names;
  for (const std::string& name : table.columns) {
    if (name != "label" && names.size() < 2) names.push_back(name);
  }
  if (names.empty())
    fail_input("{}: no text column: only 'label' (columns: {})", table.source, join_names(table.columns));
  return names;
}

void keep_first(RawFile& file, std::optional<std::size_t> max_samples) {
  if (!max_samples) return;
  const std::size_t n = *max_samples;
  if (file.table.records.size() > n) file.table.records.resize(n);
  if (file.examples.size() > n) file.examples.resize(n);
  if (file.labels.size() > n) file.labels.resize(n);
}

// `with_labels` false: a test file's rows, whose labels (if any) are not read.
Dataset to_dataset(RawFile file, const std::vector<std::string>& columns, const LabelRules& rules,
                   const text::Tokenizer& tokenizer, std::size_t max_seq_length, bool with_labels = true) {
  Dataset dataset;
  dataset.source = file.source;
  if (file.pretokenized) {
    dataset.examples = std::move(file.examples);
    if (with_labels) apply_label_rules(rules, file.labels, file.source, dataset.examples);
    return dataset;
  }
  const std::string hint = "the train file has it, so the text columns are " + join_names(columns);
  const std::size_t column_a = file.table.column(columns[0], hint);
  std::optional<std::size_t> column_b;
  if (columns.size() > 1) column_b = file.table.column(columns[1], hint);
  dataset.examples.resize(file.table.records.size());
  if (with_labels) apply_label_rules(rules, file.labels, file.source, dataset.examples);
  tokenize_rows(file.table, column_a, column_b, tokenizer, max_seq_length, dataset.examples);
  return dataset;
}

}  // namespace

std::unique_ptr<Task> ClassificationTask::from_files(const TaskOptions& options, const text::Tokenizer& tokenizer,
                                                     bool need_train, bool need_eval, bool need_predict) {
  const DatasetSplits* dataset = options.dataset ? &*options.dataset : nullptr;
  RawFile train = read_split(dataset ? &dataset->train : nullptr, options.train_file, "--train_file",
                             options.max_seq_length);
  std::optional<data::Dataset> train_rows;
  std::optional<data::Dataset> validation_rows;
  LabelRules rules = train.class_names.empty() ? infer_label_rules(train.labels, train.source)
                                               : class_label_rules(train.class_names);
  std::vector<std::string> columns;
  if (!train.pretokenized) {
    columns = text_columns(train.table);
    const std::size_t special = columns.size() + 1;  // [CLS] a [SEP] (b [SEP])
    if (options.max_seq_length < special) {
      fail_input("--max_seq_length {} is below the {} special tokens of {}", options.max_seq_length, special,
                 columns.size() > 1 ? "a sentence pair" : "a sentence");
    }
  }

  std::optional<RawFile> validation;
  if (need_eval) {
    validation = read_split(dataset ? &dataset->validation : nullptr, options.validation_file, "--validation_file",
                            options.max_seq_length);
    if (validation->pretokenized != train.pretokenized) {
      fail_input("{}: is {} but {} is {}: give both files in the same form", validation->source,
                 validation->pretokenized ? "pre-tokenized (has input_ids)" : "text", train.source,
                 train.pretokenized ? "pre-tokenized" : "text");
    }
  }
  if (need_train) {
    keep_first(train, options.max_train_samples);
    train_rows = to_dataset(std::move(train), columns, rules, tokenizer, options.max_seq_length);
  }
  if (validation) {
    keep_first(*validation, options.max_eval_samples);
    validation_rows = to_dataset(std::move(*validation), columns, rules, tokenizer, options.max_seq_length);
  }
  std::optional<data::Dataset> test_rows;
  if (need_predict) {
    const std::vector<std::filesystem::path>* test_shards = dataset ? &dataset->test : nullptr;
    if (options.test_file.empty() && (test_shards == nullptr || test_shards->empty())) {
      fail_input("--do_predict needs --test_file");
    }
    RawFile test = read_split(test_shards, options.test_file, "--test_file", options.max_seq_length, true);
    keep_first(test, options.max_predict_samples);
    if (test.pretokenized != train.pretokenized) {
      fail_input("{}: is {} but {} is {}: give both files in the same form", test.source,
                 test.pretokenized ? "pre-tokenized (has input_ids)" : "text", train.source,
                 train.pretokenized ? "pre-tokenized" : "text");
    }
    test_rows = to_dataset(std::move(test), columns, rules, tokenizer, options.max_seq_length, false);
  }
  auto task = std::make_unique<ClassificationTask>("", std::move(rules.set), std::move(train_rows),
                                                   std::move(validation_rows));
  task->test_ = std::move(test_rows);
  return task;
}

}  // namespace shmtrain::task
