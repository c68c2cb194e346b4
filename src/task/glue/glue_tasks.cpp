#include "glue_tasks.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/table.hpp"
#include "shmtrain/data/tokenize_rows.hpp"

namespace shmtrain::task {

using data::Dataset;
using data::Example;
using data::LabelSet;
using data::Record;
using data::Table;
using data::join_names;
using data::read_tsv;

LabelSet GlueTask::label_set() const {
  LabelSet set;
  set.regression = label_values.empty();
  set.names = label_names;
  return set;
}

const std::vector<GlueTask>& glue_tasks() {
  // One row per task: name, title, dev file, header-less columns, text a, text b, label
  // column, label values in the file, label names.
  // clang-format off
  static const std::vector<GlueTask> tasks = {
      {"cola", "CoLA", "dev.tsv", {"source", "label", "original annotation", "sentence"}, "sentence", "", "label",
       {"0", "1"}, {"unacceptable", "acceptable"}, "sentence", ""},
      {"sst2", "SST-2", "dev.tsv", {}, "sentence", "", "label", {"0", "1"}, {"negative", "positive"}, "sentence", ""},
      {"mrpc", "MRPC", "dev.tsv", {}, "#1 String", "#2 String", "Quality", {"0", "1"},
       {"not_equivalent", "equivalent"}, "sentence1", "sentence2"},
      {"qqp", "QQP", "dev.tsv", {}, "question1", "question2", "is_duplicate", {"0", "1"},
       {"not_duplicate", "duplicate"}, "question1", "question2"},
      {"stsb", "STS-B", "dev.tsv", {}, "sentence1", "sentence2", "score", {}, {}, "sentence1", "sentence2"},
      {"mnli", "MNLI", "dev_matched.tsv", {}, "sentence1", "sentence2", "gold_label",
       {"entailment", "neutral", "contradiction"}, {"entailment", "neutral", "contradiction"}, "premise",
       "hypothesis"},
      {"qnli", "QNLI", "dev.tsv", {}, "question", "sentence", "label", {"entailment", "not_entailment"},
       {"entailment", "not_entailment"}, "question", "sentence"},
      {"rte", "RTE", "dev.tsv", {}, "sentence1", "sentence2", "label", {"entailment", "not_entailment"},
       {"entailment", "not_entailment"}, "sentence1", "sentence2"},
      {"wnli", "WNLI", "dev.tsv", {}, "sentence1", "sentence2", "label", {"0", "1"},
       {"not_entailment", "entailment"}, "sentence1", "sentence2"},
  };
  // clang-format on
  return tasks;
}

const GlueTask* find_glue_task(std::string_view name) {
  const auto& tasks = glue_tasks();
  const auto it = std::find_if(tasks.begin(), tasks.end(), [&](const GlueTask& t) { return t.name == name; });
  return it == tasks.end() ? nullptr : &*it;
}

namespace {

void set_labels(const GlueTask& task, const Table& table, std::size_t label_column,
                std::vector<Example>& examples) {
  for (std::size_t i = 0; i < table.records.size(); ++i) {
    const Record& record = table.records[i];
    const std::string& text = record.fields[label_column].text;
    if (task.label_values.empty()) {
      double value = 0.0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
        fail_input("{}:{}: {} '{}' is not a number", table.source, record.line, task.label_column, text);
      }
      examples[i].target = static_cast<float>(value);
      continue;
    }
    const auto it = std::find(task.label_values.begin(), task.label_values.end(), text);
    if (it == task.label_values.end()) {
      fail_input("{}:{}: label '{}' is not one of {}", table.source, record.line, text,
                 join_names(task.label_values));
    }
    examples[i].label = static_cast<std::int32_t>(it - task.label_values.begin());
  }
}

}  // namespace

Dataset load_glue_test(const GlueTask& task, const std::filesystem::path& file, const text::Tokenizer& tokenizer,
                       std::size_t max_seq_length) {
  const std::string what = fmt::format("{}'s test file (--test_file, or test.tsv in --data_dir)", task.title);
  Table table = read_tsv(file, what, true, {});
  const std::string hint = fmt::format("is this {}'s test.tsv?", task.title);
  const std::size_t column_a = table.column(task.text_a, hint);
  std::optional<std::size_t> column_b;
  if (!task.text_b.empty()) column_b = table.column(task.text_b, hint);
  Dataset dataset;
  dataset.source = table.source;
  dataset.examples.resize(table.records.size());
  tokenize_rows(table, column_a, column_b, tokenizer, max_seq_length, dataset.examples);
  return dataset;
}

Dataset load_glue_split(const GlueTask& task, const std::filesystem::path& file,
                        const text::Tokenizer& tokenizer, std::size_t max_seq_length,
                        std::optional<std::size_t> max_samples) {
  const std::string what =
      fmt::format("{}'s {} from GLUE's download script (--data_dir)", task.title, file.filename().string());
  Table table = read_tsv(file, what, task.columns.empty(), task.columns);
  const std::string hint = fmt::format("is this {}'s {}?", task.title, file.filename().string());
  const std::size_t column_a = table.column(task.text_a, hint);
  std::optional<std::size_t> column_b;
  if (!task.text_b.empty()) column_b = table.column(task.text_b, hint);
  const std::size_t label_column = table.column(task.label_column, hint);
  if (max_samples && *max_samples < table.records.size()) table.records.resize(*max_samples);

  Dataset dataset;
  dataset.source = table.source;
  dataset.examples.resize(table.records.size());
  set_labels(task, table, label_column, dataset.examples);
  tokenize_rows(table, column_a, column_b, tokenizer, max_seq_length, dataset.examples);
  return dataset;
}

}  // namespace shmtrain::task
