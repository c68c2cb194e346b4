#pragma once
// run_glue.py's task: a sentence or sentence pair classified (or regressed, STS-B) from the
// [CLS] position, on a GLUE task's distributed TSV folder or on the user's own files.
//
// GLUE tasks: DIR/train.tsv and DIR/dev.tsv (mnli: DIR/dev_matched.tsv), tab-separated with
// no quoting (quote characters are text), a header line naming the columns (CoLA has none:
// source, label, original annotation, sentence). Label names and order follow Hugging Face
// `datasets` glue features, so config.json's id2label matches run_glue's:
//   cola  sentence                   label       unacceptable, acceptable        ("0", "1")
//   sst2  sentence                   label       negative, positive              ("0", "1")
//   mrpc  #1 String, #2 String       Quality     not_equivalent, equivalent      ("0", "1")
//   qqp   question1, question2       is_duplicate  not_duplicate, duplicate      ("0", "1")
//   qnli  question, sentence         label       entailment, not_entailment
//   rte   sentence1, sentence2       label       entailment, not_entailment
//   mnli  sentence1, sentence2       gold_label  entailment, neutral, contradiction
//   stsb  sentence1, sentence2       score       regression
//   wnli  sentence1, sentence2       label       not_entailment, entailment      ("0", "1")
//
// From the Hub (--dataset_name glue --dataset_config_name TASK, or --task_name TASK without
// --data_dir, as run_glue.py's load_dataset): nyu-mll/glue's parquet splits in the local
// Hugging Face cache, the texts in run_glue's task_to_keys columns (premise/hypothesis for
// mnli, sentence1/sentence2, question/sentence, ...), the label a ClassLabel index; MNLI
// evaluates on validation_matched.
//
// Custom files follow run_glue.py: the texts are sentence1 and sentence2 when both exist,
// else the first two columns other than "label" (header order; for JSON Lines the key order
// of the first object), or the one such column. The labels are column "label": when all
// train labels are numbers and one of them is not an integer (a JSON float such as 2.5 or
// 1.0, a CSV/TSV value such as "2.5") the task is a regression (Arrow types such a column
// float, and run_glue then regresses); otherwise the classes are the sorted unique train
// labels (integers numerically, anything else as text), and a validation label outside them
// is an error. The train file is read for its labels even when only evaluating.
#include <memory>

#include "shmtrain/task/task.hpp"

namespace shmtrain::task {

struct GlueTask;  // glue_tasks.hpp

class ClassificationTask final : public Task {
 public:
  ClassificationTask(std::string name, data::LabelSet labels, std::optional<data::Dataset> train,
                     std::optional<data::Dataset> validation);

  // --task_name (a GLUE task) and --data_dir (its test.tsv, or --test_file, when need_predict).
  static std::unique_ptr<Task> from_glue_folder(const TaskOptions& options, const text::Tokenizer& tokenizer,
                                                bool need_train, bool need_eval, bool need_predict = false);
  // --dataset_name glue: the task's parquet splits (options.dataset).
  static std::unique_ptr<Task> from_glue_dataset(const GlueTask& task, const TaskOptions& options,
                                                 const text::Tokenizer& tokenizer, bool need_train, bool need_eval,
                                                 bool need_predict);
  // --train_file (+ --validation_file when need_eval, + --test_file, labels optional, when
  // need_predict), or the splits of a dataset of the Hugging Face cache (options.dataset); a
  // parquet label column with ClassLabel names takes its classes from them.
  static std::unique_ptr<Task> from_files(const TaskOptions& options, const text::Tokenizer& tokenizer,
                                          bool need_train, bool need_eval, bool need_predict = false);

  data::Target target() const override;
  // eval loss (cross-entropy of the logits, or the squared error of a regression, per example
  // in double, averaged), then run_glue's metrics of the task (glue/metrics.hpp).
  Metrics score(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const override;
  // run_glue's predict_results_<task>.txt ("None" for custom files, as run_glue names it):
  // "index\tprediction", label names, or regression values with 3 decimals. No metrics: run_glue
  // drops the label column before predict, so labelled test rows are not scored either.
  Prediction predict(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const override;
};

}  // namespace shmtrain::task
