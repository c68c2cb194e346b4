#include "shmtrain/task/squad/squad_task.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/task/squad/squad_metric.hpp"

namespace shmtrain::task {

std::unique_ptr<Task> SquadTask::load(const TaskOptions& options, const text::Tokenizer& tokenizer,
                                      bool need_train, bool need_eval, bool need_predict) {
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
  auto task = std::make_unique<SquadTask>();
  task->name_ = "squad";
  task->postprocess_ = {.n_best_size = options.n_best_size, .max_answer_length = options.max_answer_length};
  if (need_train) task->train_ = build_qa_features(read_squad_file(train, false), tokenizer, features).dataset;
  if (need_eval) {
    features.max_samples = options.max_eval_samples;
    QaFeatures built = build_qa_features(read_squad_file(validation, true), tokenizer, features);
    task->validation_ = std::move(built.dataset);
    task->windows_ = std::move(built.text);
  }
  if (need_predict) {
    if (options.test_file.empty()) fail_input("--do_predict needs --test_file (a SQuAD v1.1 JSON file; answers optional)");
    features.max_samples = std::nullopt;
    QaFeatures built = build_qa_features(read_squad_file(options.test_file, false), tokenizer, features);
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
  const std::vector<std::string> predictions =
      postprocess_qa_predictions(text, outputs.values, outputs.width / 2, postprocess_);
  if (!output_dir.empty()) {
    nlohmann::ordered_json by_id = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < predictions.size(); ++i) by_id[text.file.examples[i].id] = predictions[i];
    io::write_file_atomically(output_dir / "predictions.json", by_id.dump(4, ' ', true) + "\n");
  }
  std::vector<std::vector<std::string>> golds;
  golds.reserve(text.file.examples.size());
  for (const SquadExample& example : text.file.examples) {
    std::vector<std::string>& answers = golds.emplace_back();
    for (const SquadAnswer& answer : example.answers) answers.push_back(answer.text);
  }
  const SquadScores scores = squad_scores(predictions, golds);
  return {{"exact_match", scores.exact_match}, {"f1", scores.f1}};
}

std::filesystem::path SquadTask::predict(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const {
  const SquadWindows& text = *test_windows_;
  const std::vector<std::string> predictions =
      postprocess_qa_predictions(text, outputs.values, outputs.width / 2, postprocess_);
  const std::filesystem::path file = output_dir / "predict_predictions.json";
  if (!output_dir.empty()) {
    nlohmann::ordered_json by_id = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < predictions.size(); ++i) by_id[text.file.examples[i].id] = predictions[i];
    io::write_file_atomically(file, by_id.dump(4, ' ', true) + "\n");
  }
  return file;
}

}  // namespace shmtrain::task
