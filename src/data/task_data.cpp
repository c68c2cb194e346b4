// Which data source the options name, and loading it.
#include "shmtrain/data/task_data.hpp"

#include <algorithm>
#include <cctype>

#include "custom_data.hpp"
#include "glue_tasks.hpp"
#include "shmtrain/common/error.hpp"
#include "table.hpp"

namespace shmtrain::data {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

void check_options(const DataOptions& o, bool need_eval) {
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
                 join_names(glue_task_names()));
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

TaskData load_glue_data(const DataOptions& options, const text::BertTokenizer& tokenizer, bool need_train,
                        bool need_eval) {
  const std::string name = lower(options.task_name);
  const GlueTask* task = find_glue_task(name);
  if (task == nullptr) {
    fail_input("unknown --task_name '{}': one of {}, or squad (or pass --train_file for your own data)",
               options.task_name, join_names(glue_task_names()));
  }
  std::error_code ec;
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
  TaskData data;
  data.task_name = name;
  data.labels = task->label_set();
  if (need_train) {
    data.train = load_glue_split(*task, options.data_dir / "train.tsv", tokenizer, options.max_seq_length,
                                 options.max_train_samples);
  }
  if (need_eval) {
    data.validation = load_glue_split(*task, options.data_dir / task->dev_file, tokenizer,
                                      options.max_seq_length, options.max_eval_samples);
  }
  return data;
}

// --task_name squad: SQuAD v1.1 files named by --train_file / --validation_file, or the
// official names in --data_dir.
TaskData load_squad_data(const DataOptions& options, const text::BertTokenizer& tokenizer, bool need_train,
                         bool need_eval) {
  std::filesystem::path train = options.train_file;
  std::filesystem::path validation = options.validation_file;
  if (!options.data_dir.empty()) {
    if (!train.empty() || !validation.empty()) {
      fail_input("--task_name squad takes --data_dir (with train-v1.1.json, dev-v1.1.json) or --train_file and "
                 "--validation_file, not both");
    }
    train = options.data_dir / "train-v1.1.json";
    validation = options.data_dir / "dev-v1.1.json";
  }
  if (need_train && train.empty()) {
    fail_input("--task_name squad needs --train_file (a SQuAD v1.1 JSON file such as train-v1.1.json) or "
               "--data_dir; shmtrain downloads nothing");
  }
  if (need_eval && validation.empty()) {
    fail_input("--task_name squad evaluation needs --validation_file (a SQuAD v1.1 JSON file such as "
               "dev-v1.1.json), or run without evaluation");
  }
  if (options.max_train_samples && *options.max_train_samples == 0) fail_input("--max_train_samples 0 keeps no rows");
  if (options.max_eval_samples && *options.max_eval_samples == 0) fail_input("--max_eval_samples 0 keeps no rows");
  QaFeatureOptions features{.max_seq_length = options.max_seq_length, .doc_stride = options.doc_stride,
                            .max_samples = options.max_train_samples};
  TaskData data;
  data.task_name = "squad";
  if (need_train) data.train = build_qa_features(read_squad_file(train, false), tokenizer, features).dataset;
  if (need_eval) {
    features.max_samples = options.max_eval_samples;
    QaFeatures built = build_qa_features(read_squad_file(validation, true), tokenizer, features);
    data.validation = std::move(built.dataset);
    data.squad_validation = std::move(built.text);
  }
  return data;
}

}  // namespace

const std::vector<std::string>& glue_task_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const GlueTask& task : glue_tasks()) out.push_back(task.name);
    return out;
  }();
  return names;
}

TaskData load_task_data(const DataOptions& options, const text::BertTokenizer& tokenizer, bool need_train,
                        bool need_eval) {
  const std::string task = lower(options.task_name);
  if (task == "squad") return load_squad_data(options, tokenizer, need_train, need_eval);
  if (task == "squad_v2") {
    fail_input("--task_name squad_v2: SQuAD v2's unanswerable questions are not supported; --task_name squad "
               "trains and scores SQuAD v1.1");
  }
  check_options(options, need_eval);
  if (!options.task_name.empty()) return load_glue_data(options, tokenizer, need_train, need_eval);
  return load_custom_data(options, tokenizer, need_train, need_eval);
}

}  // namespace shmtrain::data
