// GLUE from the Hub: the parquet splits of nyu-mll/glue, as run_glue.py reads them with
// load_dataset("nyu-mll/glue", task) (text columns by task_to_keys, labels ClassLabel indices).
#include <fmt/format.h>

#include "glue_tasks.hpp"
#include "label_rules.hpp"
#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/parquet_split.hpp"
#include "shmtrain/data/table.hpp"
#include "shmtrain/data/tokenize_rows.hpp"

namespace shmtrain::task {

data::Dataset load_glue_parquet(const GlueTask& task, const std::vector<std::filesystem::path>& shards,
                                const text::Tokenizer& tokenizer, std::size_t max_seq_length,
                                std::optional<std::size_t> max_samples, bool with_labels) {
  const std::string what = fmt::format("{}'s split of nyu-mll/glue (parquet)", task.title);
  data::Table table = data::json_lines_table(data::read_parquet_split(shards, what).rows);
  const std::string hint = fmt::format("is this nyu-mll/glue's {} split?", task.name);
  const std::size_t column_a = table.column(task.hub_text_a, hint);
  std::optional<std::size_t> column_b;
  if (!task.hub_text_b.empty()) column_b = table.column(task.hub_text_b, hint);
  if (max_samples && *max_samples < table.records.size()) table.records.resize(*max_samples);

  data::Dataset dataset;
  dataset.source = table.source;
  dataset.examples.resize(table.records.size());
  if (with_labels) {
    LabelRules rules;
    if (task.label_values.empty()) {
      rules.set.regression = true;
    } else {
      rules = class_label_rules(task.label_names);
    }
    apply_label_rules(rules, column_labels(table, table.column("label", hint)), table.source, dataset.examples);
  }
  data::tokenize_rows(table, column_a, column_b, tokenizer, max_seq_length, dataset.examples);
  return dataset;
}

}  // namespace shmtrain::task
