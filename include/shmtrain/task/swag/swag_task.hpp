#pragma once
// run_swag.py's task (--task_name swag, the run_swag command): multiple choice on SWAG's
// columns (sent1, sent2, ending0..ending3, label) from --train_file/--validation_file/--test_file
// (.csv, .json/.jsonl, .parquet) or the Hub's swag (allenai/swag, config "regular", the default of
// the run_swag command without files). Each of an example's 4 choices is the pair
// (sent1, f"{sent2} {ending}") truncated to max_seq_length (longest_first), as run_swag's
// preprocess_function builds it; an example's choices stay together in one micro-batch.
// Metrics: loss (cross-entropy over the choices) and accuracy; --do_predict writes
// predict_results_swag.txt (index, the chosen ending) and scores labelled test rows.
#include <memory>

#include "shmtrain/task/task.hpp"

namespace shmtrain::task {

class SwagTask final : public Task {
 public:
  static std::unique_ptr<Task> load(const TaskOptions& options, const text::Tokenizer& tokenizer, bool need_train,
                                    bool need_eval, bool need_predict);

  data::Target target() const override { return data::Target::kChoice; }
  std::string describe_labels() const override { return "4 choices"; }
  std::int64_t output_width(std::int64_t, std::int64_t) const override { return kChoices; }
  Metrics score(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const override;
  Prediction predict(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const override;

  static constexpr std::int64_t kChoices = 4;
};

}  // namespace shmtrain::task
