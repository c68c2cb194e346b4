#include "shmtrain/task/squad/squad_task.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/task/squad/prediction_files.hpp"
#include "shmtrain/task/squad/squad_metric.hpp"
#include "shmtrain/task/squad/squad_v2_metric.hpp"

namespace shmtrain::task {

std::unique_ptr<Task> SquadTask::load(const TaskOptions& options, const text::Tokenizer& tokenizer,
                                      bool need_train, bool need_eval, bool need_predict) {
  const bool v2 = options.version_2_with_negative;
  const std::string version = v2 ? "SQuAD 2.0" : "SQuAD v1.1";
  const std::string train_name = v2 ? "train-v2.0.json" : "train-v1.1.json";
  const std::string dev_name = v2 ? "dev-v2.0.json" : "dev-v1.1.json";
  std::filesystem::path train = options.train_file;
  std::filesystem::path validation = options.validation_file;
  if (!options.data_dir.empty()) {
    if (!train.empty() || !validation.empty()) {
      fail_input("--task_name squad takes --data_dir (with {}, {}) or --train_file and --validation_file, not both",
                 train_name, dev_name);
    }
    train = options.data_dir / train_name;
    validation = options.data_dir / dev_name;
  }
  const DatasetSplits* dataset = options.dataset ? &*options.dataset : nullptr;
  // A split of --dataset_name (rajpurkar/squad, squad_v2), or else the file.
  const auto read_split = [&](const std::vector<std::filesystem::path>* shards, const std::filesystem::path& file,
                              bool need_answers) {
    return shards != nullptr && !shards->empty() ? read_squad_split(*shards, need_answers)
                                                 : read_squad_file(file, need_answers);
  };
  if (need_train && train.empty() && dataset == nullptr) {
    fail_input("--task_name squad needs --train_file (a {} JSON file such as {}) or --data_dir; shmtrain downloads "
               "nothing",
               version, train_name);
  }
  if (need_eval && validation.empty() && dataset == nullptr) {
    fail_input("--task_name squad evaluation needs --validation_file (a {} JSON file such as {}), or run without "
               "evaluation",
               version, dev_name);
  }
  if (options.max_train_samples && *options.max_train_samples == 0) fail_input("--max_train_samples 0 keeps no rows");
  if (options.max_eval_samples && *options.max_eval_samples == 0) fail_input("--max_eval_samples 0 keeps no rows");
  QaFeatureOptions features{.max_seq_length = options.max_seq_length, .doc_stride = options.doc_stride,
                            .max_samples = options.max_train_samples};
  auto task = std::make_unique<SquadTask>();
  task->name_ = "squad";
  task->postprocess_ = {.n_best_size = options.n_best_size,
                        .max_answer_length = options.max_answer_length,
                        .version_2_with_negative = v2,
                        .null_score_diff_threshold = options.null_score_diff_threshold};
  if (need_train) {
    task->train_ =
        build_qa_features(read_split(dataset ? &dataset->train : nullptr, train, false), tokenizer, features).dataset;
  }
  if (need_eval) {
    features.max_samples = options.max_eval_samples;
    // SQuAD 2.0 scores a question without answers as unanswerable; v1.1 cannot score it.
    QaFeatures built =
        build_qa_features(read_split(dataset ? &dataset->validation : nullptr, validation, !v2), tokenizer, features);
    task->validation_ = std::move(built.dataset);
    task->windows_ = std::move(built.text);
  }
  if (need_predict) {
    const std::vector<std::filesystem::path>* test_shards = dataset ? &dataset->test : nullptr;
    if (options.test_file.empty() && (test_shards == nullptr || test_shards->empty())) {
      fail_input("--do_predict needs --test_file (a {} JSON file; answers optional)", version);
    }
    features.max_samples = options.max_predict_samples;
    QaFeatures built = build_qa_features(read_split(test_shards, options.test_file, false), tokenizer, features);
    task->test_ = std::move(built.dataset);
    task->test_windows_ = std::move(built.text);
  }
  return task;
}

std::string SquadTask::describe_validation() const {
  return windows_ ? fmt::format(" of {} questions", windows_->file.examples.size()) : std::string();
}

std::int64_t SquadTask::output_width(std::int64_t /*num_labels*/, std::int64_t max_seq_length) const {
  return 2 * max_seq_length;
}

Metrics SquadTask::score(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const {
  const SquadWindows& text = *windows_;
  const std::vector<QaPrediction> predictions = postprocess_qa(text, outputs.values, outputs.width / 2, postprocess_);
  if (!output_dir.empty()) {
    write_qa_prediction_files(output_dir, "eval", text.file, predictions, postprocess_.version_2_with_negative);
  }
  return scores_of(text.file, predictions);
}

Metrics SquadTask::scores_of(const SquadFile& file, const std::vector<QaPrediction>& predictions) const {
  std::vector<std::string> answers;
  std::vector<std::vector<std::string>> golds;
  answers.reserve(predictions.size());
  golds.reserve(file.examples.size());
  for (const QaPrediction& prediction : predictions) answers.push_back(prediction.answer);
  for (const SquadExample& example : file.examples) {
    std::vector<std::string>& gold = golds.emplace_back();
    for (const SquadAnswer& answer : example.answers) gold.push_back(answer.text);
  }
  if (!postprocess_.version_2_with_negative) {
    const SquadScores scores = squad_scores(answers, golds);
    return {{"exact_match", scores.exact_match}, {"f1", scores.f1}};
  }
  // evaluate's squad_v2 as run_qa calls it: no-answer probability 0 for every question.
  return squad_v2_named(squad_v2_scores(answers, golds));
}

bool SquadTask::answered(const SquadFile& file) const {
  const auto has_answers = [](const SquadExample& example) { return !example.answers.empty(); };
  const auto& questions = file.examples;
  return postprocess_.version_2_with_negative ? std::any_of(questions.begin(), questions.end(), has_answers)
                                              : std::all_of(questions.begin(), questions.end(), has_answers);
}

Prediction SquadTask::predict(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const {
  const SquadWindows& text = *test_windows_;
  const std::vector<QaPrediction> predictions = postprocess_qa(text, outputs.values, outputs.width / 2, postprocess_);
  Prediction out{
      .file = output_dir / "predict_predictions.json", .metrics = {}, .prefix = "test", .with_samples = true};
  if (!output_dir.empty()) {
    out.file = write_qa_prediction_files(output_dir, "predict", text.file, predictions,
                                         postprocess_.version_2_with_negative);
  }
  if (answered(text.file)) out.metrics = scores_of(text.file, predictions);
  return out;
}

}  // namespace shmtrain::task
