#pragma once
// run_qa.py's task: extractive question answering on SQuAD JSON files (squad_file.hpp),
// --train_file and --validation_file, or --data_dir holding SQuAD's train-v1.1.json and
// dev-v1.1.json (train-v2.0.json and dev-v2.0.json with --version_2_with_negative). Each
// question becomes one row per context window (qa_features.hpp); the model gives every token a
// start and an end logit, post-processed into answer texts (postprocess.hpp), written as run_qa
// writes them (prediction_files.hpp: eval_predictions.json, eval_nbest_predictions.json and,
// for SQuAD 2.0, eval_null_odds.json) and scored with SQuAD's exact match and F1
// (squad_metric.hpp), or SQuAD 2.0's metric (squad_v2_metric.hpp) with
// --version_2_with_negative. No eval loss: run_qa's evaluation features carry no answer
// positions.
#include <memory>

#include "shmtrain/task/squad/postprocess.hpp"
#include "shmtrain/task/squad/qa_features.hpp"
#include "shmtrain/task/task.hpp"

namespace shmtrain::task {

class SquadTask final : public Task {
 public:
  static std::unique_ptr<Task> load(const TaskOptions& options, const text::Tokenizer& tokenizer,
                                    bool need_train, bool need_eval, bool need_predict = false);

  data::Target target() const override { return data::Target::kSpan; }
  std::string row_noun() const override { return "windows"; }
  std::string describe_labels() const override { return "question answering (answer spans)"; }
  std::string describe_validation() const override;
  // A start and an end logit per position.
  std::int64_t output_width(std::int64_t num_labels, std::int64_t max_seq_length) const override;
  // What positions past a batch's padded length get, as run_qa's create_and_fill_np_array.
  float missing_output() const override { return -100.0f; }
  // exact_match and f1 (percent), or SQuAD 2.0's exact, f1, total, HasAns_*, NoAns_*, best_*;
  // writes output_dir/eval_predictions.json and the other eval_ files.
  Metrics score(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const override;
  // run_qa's predict step for --test_file: predict_predictions.json (question id -> answer),
  // predict_nbest_predictions.json and, for SQuAD 2.0, predict_null_odds.json. A test file
  // with answers (SQuAD v1.1: on every question; 2.0: on any, the others unanswerable) is
  // scored as the validation file is; run_qa names those metrics test_*.
  Prediction predict(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const override;

  // The validation rows' windows and texts; set when the validation split was loaded.
  const std::optional<SquadWindows>& validation_windows() const { return windows_; }

 private:
  // The metrics of `predictions` (one per question of `file`) against its answers.
  Metrics scores_of(const SquadFile& file, const std::vector<QaPrediction>& predictions) const;
  // Whether `file` carries the answers to score it with.
  bool answered(const SquadFile& file) const;

  std::optional<SquadWindows> windows_;
  std::optional<SquadWindows> test_windows_;
  QaPostprocessOptions postprocess_;
};

}  // namespace shmtrain::task
