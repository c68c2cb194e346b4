// Which task and data source the options name, and loading it.
#include "shmtrain/task/task.hpp"

#include <algorithm>
#include <cctype>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/table.hpp"
#include "shmtrain/task/glue/classification_task.hpp"
#include "shmtrain/task/mlm/mlm_task.hpp"
#include "shmtrain/task/ner/ner_task.hpp"
#include "shmtrain/task/squad/squad_task.hpp"
#include "shmtrain/task/reranking/reranking_task.hpp"
#include "shmtrain/task/sentence_embedding/sentence_task.hpp"
#include "shmtrain/task/swag/swag_task.hpp"

namespace shmtrain::task {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

void check_options(const TaskOptions& o, bool need_eval) {
  if (o.dataset) return;  // train/ checked that no files were given with it
  const bool glue = !o.task_name.empty() || !o.data_dir.empty();
  const bool custom = !o.train_file.empty() || !o.validation_file.empty();
  if (glue && custom) {
    fail_input(
        "both a GLUE task (--task_name, --data_dir) and custom files (--train_file, --validation_file) were "
        "given: pass one of them");
  }
  if (!glue && !custom) {
    fail_input(
        "no data: pass --task_name and --data_dir (a GLUE task's folder of TSV files), or --train_file{} "
        "(your own .csv, .tsv or .jsonl files)",
        need_eval ? " and --validation_file" : "");
  }
  if (glue) {
    if (o.task_name.empty())
      fail_input("--data_dir {} needs --task_name (one of {})", o.data_dir.string(),
                 data::join_names(glue_task_names()));
    if (o.data_dir.empty()) {
      fail_input("--task_name {} needs --data_dir, the folder of GLUE's {} TSV files (train.tsv, dev.tsv)",
                 o.task_name, o.task_name);
    }
  } else {
    if (o.train_file.empty()) {
      fail_input("--validation_file needs --train_file too: the label set is read from the training file");
    }
    if (need_eval && o.validation_file.empty()) {
      fail_input("evaluation needs --validation_file (or run without evaluation)");
    }
  }
  if (o.max_seq_length == 0) fail_input("--max_seq_length must be at least 1");
  if (o.max_train_samples && *o.max_train_samples == 0) fail_input("--max_train_samples 0 keeps no rows");
  if (o.max_eval_samples && *o.max_eval_samples == 0) fail_input("--max_eval_samples 0 keeps no rows");
}

}  // namespace

std::unique_ptr<Task> load_task(const TaskOptions& options, const text::Tokenizer& tokenizer, bool need_train,
                                bool need_eval, bool need_predict) {
  const std::string task = lower(options.task_name);
  if (task == "squad") return SquadTask::load(options, tokenizer, need_train, need_eval, need_predict);
  if (task == "sentence-embedding") {
    if (need_predict) fail_input("--do_predict: the sentence-embedding task has no prediction step; use shmtrain encode");
    return SentenceEmbeddingTask::load(options, tokenizer, need_train, need_eval);
  }
  if (task == "reranking") {
    if (need_predict) fail_input("--do_predict: the reranking task has no prediction step yet");
    return RerankingTask::load(options, tokenizer, need_train, need_eval);
  }
  if (task == "swag") return SwagTask::load(options, tokenizer, need_train, need_eval, need_predict);
  if (task == "mlm") {
    if (need_predict) fail_input("--do_predict: run_mlm has no prediction step; use --do_eval");
    return MlmTask::load(options, tokenizer, need_train, need_eval);
  }
  if (task == "ner" || task == "pos" || task == "chunk") {
    TaskOptions ner = options;
    ner.task_name = task;
    return NerTask::load(ner, tokenizer, need_train, need_eval, need_predict);
  }
  if (task == "squad_v2") {
    fail_input("--task_name squad_v2: SQuAD 2.0 is --task_name squad --version_2_with_negative, as run_qa.py "
               "spells it");
  }
  check_options(options, need_eval);
  if (options.task_name.empty()) {
    return ClassificationTask::from_files(options, tokenizer, need_train, need_eval, need_predict);
  }
  TaskOptions glue = options;
  glue.task_name = task;
  return ClassificationTask::from_glue_folder(glue, tokenizer, need_train, need_eval, need_predict);
}

}  // namespace shmtrain::task
