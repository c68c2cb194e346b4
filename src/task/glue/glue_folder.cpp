// --task_name (a GLUE task) and --data_dir: GLUE's distributed TSV folder.
#include <system_error>

#include "glue_tasks.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/data/table.hpp"
#include "shmtrain/task/glue/classification_task.hpp"

namespace shmtrain::task {
namespace {

}  // namespace

// REQUIRES: options.task_name lower-cased.
std::unique_ptr<Task> ClassificationTask::from_glue_folder(const TaskOptions& options,
                                                           const text::Tokenizer& tokenizer, bool need_train,
                                                           bool need_eval, bool need_predict) {
  const GlueTask* task = find_glue_task(options.task_name);
  if (task == nullptr) {
    fail_input("unknown --task_name '{}': one of {}, or squad (or pass --train_file for your own data)",
               options.task_name, data::join_names(glue_task_names()));
  }
  std::error_code ec;
  if (options.dataset) return from_glue_dataset(*task, options, tokenizer, need_train, need_eval, need_predict);
  if (!std::filesystem::is_directory(options.data_dir, ec)) {
    fail_input("{}: no such folder; --data_dir must be the folder of GLUE's {} files (train.tsv, {})",
               options.data_dir.string(), task->title, task->dev_file);
  }
  // Sentence pairs need room for [CLS] a [SEP] b [SEP].
  const std::size_t special = task->text_b.empty() ? 2 : 3;
  if (options.max_seq_length < special) {
    fail_input("--max_seq_length {} is below the {} special tokens of {}", options.max_seq_length, special,
               task->title);
  }
  std::optional<data::Dataset> train;
  std::optional<data::Dataset> validation;
  if (need_train) {
    train = load_glue_split(*task, options.data_dir / "train.tsv", tokenizer, options.max_seq_length,
                            options.max_train_samples);
  }
  if (need_eval) {
    validation = load_glue_split(*task, options.data_dir / task->dev_file, tokenizer, options.max_seq_length,
                                 options.max_eval_samples);
  }
  auto out = std::make_unique<ClassificationTask>(task->name, task->label_set(), std::move(train), std::move(validation));
  // MNLI's mismatched set is evaluated when the folder has it (GLUE's download does).
  if (need_eval && task->name == "mnli" && std::filesystem::is_regular_file(options.data_dir / "dev_mismatched.tsv", ec)) {
    out->mismatched_ = std::make_shared<ClassificationTask>(
        task->name, task->label_set(), std::nullopt,
        load_glue_split(*task, options.data_dir / "dev_mismatched.tsv", tokenizer, options.max_seq_length,
                        options.max_eval_samples));
  }
  if (need_predict) {
    const std::filesystem::path test = !options.test_file.empty() ? options.test_file
                                       : options.data_dir / (task->name == "mnli" ? "test_matched.tsv" : "test.tsv");
    out->test_ = load_glue_test(*task, test, tokenizer, options.max_seq_length);
    data::keep_first(*out->test_, options.max_predict_samples);
  }
  return out;
}

std::unique_ptr<Task> ClassificationTask::from_glue_dataset(const GlueTask& task, const TaskOptions& options,
                                                            const text::Tokenizer& tokenizer, bool need_train,
                                                            bool need_eval, bool need_predict) {
  const DatasetSplits& splits = *options.dataset;
  std::optional<data::Dataset> train;
  std::optional<data::Dataset> validation;
  if (need_train) {
    train = load_glue_parquet(task, splits.train, tokenizer, options.max_seq_length, options.max_train_samples, true);
  }
  if (need_eval) {
    validation = load_glue_parquet(task, splits.validation, tokenizer, options.max_seq_length,
                                   options.max_eval_samples, true);
  }
  auto out = std::make_unique<ClassificationTask>(task.name, task.label_set(), std::move(train), std::move(validation));
  if (need_eval && task.name == "mnli") {
    out->mismatched_ = std::make_shared<ClassificationTask>(
        task.name, task.label_set(), std::nullopt,
        load_glue_parquet(task, splits.validation_mismatched, tokenizer, options.max_seq_length,
                          options.max_eval_samples, true));
  }
  if (need_predict) {
    out->test_ = !options.test_file.empty()
                     ? load_glue_test(task, options.test_file, tokenizer, options.max_seq_length)
                     : load_glue_parquet(task, splits.test, tokenizer, options.max_seq_length,
                                         options.max_predict_samples, false);
    data::keep_first(*out->test_, options.max_predict_samples);
  }
  return out;
}

const std::vector<std::string>& glue_task_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const GlueTask& task : glue_tasks()) out.push_back(task.name);
    return out;
  }();
  return names;
}

}  // namespace shmtrain::task
