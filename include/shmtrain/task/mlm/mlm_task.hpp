#pragma once
// run_mlm.py's task (--task_name mlm): masked-LM training on text (mlm_texts.hpp), as
// examples/pytorch/language-modeling/run_mlm.py prepares it:
// - by default group_texts: every text tokenized with its special tokens, untruncated; each map
//   batch of 1,000 texts concatenated and cut into blocks of max_seq_length tokens, the remainder
//   of each batch dropped;
// - --line_by_line: each non-blank text one row, truncated to max_seq_length;
// - without a validation split or file, validation is train[:p%] and training train[p%:]
//   (--validation_split_percentage p, rounded as datasets' percent slices);
// - --max_train_samples / --max_eval_samples keep the first blocks (or rows).
// Masks are drawn per batch (prepare_batch: data/mlm_masking.hpp, --mlm_probability,
// --whole_word_mask), a function of (seed, row, epoch); pre-tokenized rows with labels are used
// as they are. Metrics: loss (a token mean over the masked tokens), accuracy (run_mlm's
// compute_metrics), and perplexity = exp(loss), which run_mlm reports without the eval_ prefix.
#include <memory>

#include "shmtrain/data/mlm_masking.hpp"
#include "shmtrain/task/mlm/mlm_texts.hpp"
#include "shmtrain/task/task.hpp"

namespace shmtrain::task {

class MlmTask final : public Task {
 public:
  static std::unique_ptr<Task> load(const TaskOptions& options, const text::Tokenizer& tokenizer, bool need_train,
                                    bool need_eval);

  data::Target target() const override { return data::Target::kMaskedTokens; }
  std::string row_noun() const override { return line_by_line_ ? "lines" : "blocks"; }
  std::string describe_labels() const override;
  std::int64_t output_width(std::int64_t, std::int64_t) const override { return 3; }
  Metrics score(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const override;
  void prepare_batch(data::Batch& batch, std::uint64_t epoch) const override;

 private:
  bool line_by_line_ = false;
  data::MlmMasking rule_;
  data::TokenClasses classes_;
  std::uint64_t seed_ = 42;
  std::string marks_;  // how whole words were found, for the plan line
};

// run_mlm's rows from a source's texts (group_texts, or line by line); pre-tokenized rows as
// they come (each at most max_seq_length tokens, else InputError naming the row).
data::Dataset mlm_rows(const MlmSource& source, const text::Tokenizer& tokenizer, std::size_t max_seq_length,
                       bool line_by_line);

}  // namespace shmtrain::task
