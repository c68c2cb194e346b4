#pragma once
// The training and evaluation data of a fine-tuning run, as Hugging Face's run_glue.py finds
// it: a GLUE task read from GLUE's distributed TSV folder (--task_name, --data_dir), or the
// user's own files (--train_file, --validation_file: .csv, .tsv, .json/.jsonl), either text
// to tokenize or pre-tokenized JSON Lines (rows holding "input_ids").
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
//
// Custom files follow run_glue.py: the texts are sentence1 and sentence2 when both exist,
// else the first two columns other than "label" (header order; for JSON Lines the key order
// of the first object), or the one such column. The labels are column "label": when all
// train labels are numbers and one of them is not an integer (a JSON float such as 2.5 or
// 1.0, a CSV/TSV value such as "2.5") the task is a regression (Arrow types such a column
// float, and run_glue then regresses); otherwise the classes are the sorted unique train
// labels (integers numerically, anything else as text), and a validation label outside them
// is an error. The train file is read for its labels even when only evaluating.
//
// Question answering (--task_name squad, run_qa.py's task): SQuAD v1.1 JSON files
// (data/squad.hpp), --train_file and --validation_file, or --data_dir holding SQuAD's
// train-v1.1.json and dev-v1.1.json; each question becomes one row per context window
// (data/qa_features.hpp).
//
// Every problem is an InputError "FILE:LINE: problem" (LINE 1-based, the physical line;
// for a CSV record spanning lines, the line where it starts), "FILE: JSON.PATH: problem" for
// SQuAD files, or "FILE: problem".
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "shmtrain/data/dataset.hpp"
#include "shmtrain/data/qa_features.hpp"
#include "shmtrain/text/bert_tokenizer.hpp"

namespace shmtrain::data {

struct DataOptions {
  std::string task_name;             // "" (custom files), mrpc|sst2|qqp|qnli|rte|cola|stsb|mnli, or squad
  std::filesystem::path data_dir;    // with task_name: GLUE's distributed TSV folder
  std::filesystem::path train_file;  // custom files (run_glue's --train_file/--validation_file)
  std::filesystem::path validation_file;
  std::size_t max_seq_length = 128;
  std::optional<std::size_t> max_train_samples;  // keep the first N rows (run_glue's options)
  std::optional<std::size_t> max_eval_samples;
  std::size_t doc_stride = 128;  // squad: overlap of a context's windows, in tokens (run_qa's)
};

struct TaskData {
  std::string task_name;  // lower-cased GLUE task, "squad", "" for custom files (selects metrics)
  LabelSet labels;        // empty for squad
  std::optional<Dataset> train;       // loaded when need_train (squad: one row per window)
  std::optional<Dataset> validation;  // loaded when need_eval
  std::optional<SquadWindows> squad_validation;  // squad with need_eval: the validation rows' text

  bool question_answering() const { return task_name == "squad"; }
  Target target() const {
    return question_answering() ? Target::kSpan : labels.regression ? Target::kRegression : Target::kClass;
  }
};

// Reads and tokenizes (truncation longest_first to max_seq_length, no padding) the files.
// Exactly one source: task_name + data_dir, or train_file (+ validation_file when need_eval).
// Tokenizes in parallel (oneTBB); the examples keep the file order.
TaskData load_task_data(const DataOptions& options, const text::BertTokenizer& tokenizer, bool need_train,
                        bool need_eval);

// The GLUE task names load_task_data knows, in the order listed above.
const std::vector<std::string>& glue_task_names();

}  // namespace shmtrain::data
