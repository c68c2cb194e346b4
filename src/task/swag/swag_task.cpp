#include "shmtrain/task/swag/swag_task.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/parquet.hpp"
#include "shmtrain/data/parquet_split.hpp"
#include "shmtrain/data/table.hpp"
#include "shmtrain/data/tokenize_rows.hpp"
#include "shmtrain/io/atomic_file.hpp"

namespace shmtrain::task {
namespace {

// The examples of a SWAG table; labelled: it has a label column.
struct SwagRows {
  data::Dataset dataset;
  bool labelled = true;
};

data::Table read_table(const std::vector<std::filesystem::path>* shards, const std::filesystem::path& path,
                       const char* flag) {
  if (shards != nullptr && !shards->empty()) {
    return data::json_lines_table(data::read_parquet_split(*shards, flag).rows);
  }
  return data::read_table_file(
      path, fmt::format("the {} file (.csv, .json, .jsonl or .parquet with SWAG's columns)", flag), flag);
}

// The label of a record: an integer 0..3 (CSV text or a JSON integer); -1 or a missing/null
// value when `optional` (SWAG's test rows).
std::int32_t read_label(const data::Table& table, const data::Record& record, std::optional<std::size_t> column,
                        bool optional) {
  if (!column) return -1;
  const data::Value& v = record.fields[*column];
  if (optional && (v.kind == data::ValueKind::missing || v.kind == data::ValueKind::null || v.text.empty())) return -1;
  std::int64_t label = -2;
  const bool integer = v.kind == data::ValueKind::integer || v.kind == data::ValueKind::untyped;
  if (integer) {
    const auto [end, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), label);
    if (ec != std::errc() || end != v.text.data() + v.text.size()) label = -2;
  }
  if ((label == -1 && optional) || (label >= 0 && label < SwagTask::kChoices)) return static_cast<std::int32_t>(label);
  fail_input("{}:{}: label '{}' is not a choice (0 to {})", table.source, record.line, v.text, SwagTask::kChoices - 1);
}

const std::string& text_of(const data::Table& table, const data::Record& record, std::size_t column) {
  const data::Value& v = record.fields[column];
  if (v.kind != data::ValueKind::untyped && v.kind != data::ValueKind::string) {
    fail_input("{}:{}: column '{}' must hold text", table.source, record.line, table.columns[column]);
  }
  return v.text;
}

// run_swag's preprocess_function over every record, in parallel, file order kept.
SwagRows swag_rows(const data::Table& table, const text::Tokenizer& tokenizer, std::size_t max_seq_length,
                   bool labels_optional) {
  const char* hint = "run_swag reads SWAG's columns sent1, sent2, ending0..ending3 and label";
  const std::size_t sent1 = table.column("sent1", hint);
  const std::size_t sent2 = table.column("sent2", hint);
  std::vector<std::size_t> endings;
  for (std::int64_t i = 0; i < SwagTask::kChoices; ++i) endings.push_back(table.column(fmt::format("ending{}", i), hint));
  const std::optional<std::size_t> label =
      labels_optional ? table.find_column("label") : std::optional<std::size_t>(table.column("label", hint));
  SwagRows out;
  out.dataset.source = table.source;
  out.dataset.examples.resize(table.records.size());
  out.labelled = label.has_value();
  data::for_each_record(table, [&](std::size_t r) {
    const data::Record& record = table.records[r];
    data::Example& example = out.dataset.examples[r];
    example.label = read_label(table, record, label, labels_optional);
    const std::string& context = text_of(table, record, sent1);
    const std::string& header = text_of(table, record, sent2);
    text::Encoding encoding;
    for (const std::size_t ending : endings) {
      const std::string second = fmt::format("{} {}", header, text_of(table, record, ending));
      tokenizer.encode(context, second, text::EncodeOptions{max_seq_length, false}, encoding);
      data::append_text(example, encoding);
    }
  });
  return out;
}

}  // namespace

std::unique_ptr<Task> SwagTask::load(const TaskOptions& options, const text::Tokenizer& tokenizer, bool need_train,
                                     bool need_eval, bool need_predict) {
  if (!options.data_dir.empty()) fail_input("--task_name swag reads --train_file/--validation_file or the Hub's swag, not --data_dir");
  const DatasetSplits* hub = options.dataset ? &*options.dataset : nullptr;
  const auto split = [&](const std::vector<std::filesystem::path>* shards, const std::filesystem::path& file,
                         const char* flag, const std::optional<std::size_t>& max_samples, bool labels_optional) {
    if ((shards == nullptr || shards->empty()) && file.empty()) {
      fail_input("--task_name swag needs {} (SWAG's columns in .csv, .json/.jsonl or .parquet), or the Hub's swag "
                 "dataset (run the run_swag command without files)",
                 flag);
    }
    SwagRows rows = swag_rows(read_table(shards, file, flag), tokenizer, options.max_seq_length, labels_optional);
    data::keep_first(rows.dataset, max_samples);
    if (rows.dataset.examples.empty()) fail_input("{}: no examples", rows.dataset.source);
    return rows;
  };
  auto task = std::make_unique<SwagTask>();
  task->name_ = "swag";
  if (need_train) task->train_ = split(hub ? &hub->train : nullptr, options.train_file, "--train_file",
                                       options.max_train_samples, false).dataset;
  if (need_eval) task->validation_ = split(hub ? &hub->validation : nullptr, options.validation_file,
                                           "--validation_file", options.max_eval_samples, false).dataset;
  if (need_predict) {
    const bool file = !options.test_file.empty();
    task->test_ = split(file || hub == nullptr ? nullptr : &hub->test, options.test_file, "--test_file",
                        options.max_predict_samples, true).dataset;
  }
  return task;
}

Metrics SwagTask::score(const ModelOutputs& outputs, const std::filesystem::path& /*output_dir*/) const {
  const std::vector<data::Example>& examples = validation_->examples;
  double loss = 0, correct = 0;
  for (std::size_t row = 0; row < examples.size(); ++row) {
    const std::span<const float> logits = outputs.values.subspan(row * kChoices, kChoices);
    loss += cross_entropy(logits, examples[row].label);
    correct += (std::max_element(logits.begin(), logits.end()) - logits.begin()) == examples[row].label;
  }
  const auto n = static_cast<double>(std::max<std::size_t>(examples.size(), 1));
  return {{"loss", loss / n}, {"accuracy", correct / n}};
}

Prediction SwagTask::predict(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const {
  const std::vector<data::Example>& examples = test_->examples;
  std::string text = "index\tprediction\n";
  double loss = 0, correct = 0;
  bool labelled = !examples.empty();
  for (std::size_t row = 0; row < examples.size(); ++row) {
    const std::span<const float> logits = outputs.values.subspan(row * kChoices, kChoices);
    const auto chosen = std::max_element(logits.begin(), logits.end()) - logits.begin();
    text += fmt::format("{}\t{}\n", row, chosen);
    if (examples[row].label < 0) {
      labelled = false;
      continue;
    }
    loss += cross_entropy(logits, examples[row].label);
    correct += chosen == examples[row].label;
  }
  Prediction prediction;
  prediction.file = output_dir / "predict_results_swag.txt";
  if (!output_dir.empty()) io::write_file_atomically(prediction.file, text);
  if (labelled) {
    const auto n = static_cast<double>(examples.size());
    prediction.metrics = {{"loss", loss / n}, {"accuracy", correct / n}};
  }
  return prediction;
}

}  // namespace shmtrain::task
