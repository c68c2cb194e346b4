#pragma once
// run_ner.py's task: token classification (--task_name ner, pos or chunk) on word/tag files
// (tagged_file.hpp). Each sentence's words are tokenized pre-split (is_split_into_words), cut
// to max_seq_length; a word's tag goes on its first sub-token and -100 on the others and on
// the special tokens (with label_all_tokens, the others take the word's tag, B- as I-). The
// tag set is the training file's tags sorted, as run_ner builds it (a run without training
// takes the model's id2label). Scored as run_ner scores it: seqeval's precision, recall, F1
// and accuracy over the labelled tokens (seqeval.hpp), per entity type with
// return_entity_level_metrics.
#include <memory>
#include <vector>

#include "shmtrain/task/ner/tagged_file.hpp"
#include "shmtrain/task/task.hpp"

namespace shmtrain::task {

class NerTask final : public Task {
 public:
  static std::unique_ptr<Task> load(const TaskOptions& options, const text::Tokenizer& tokenizer, bool need_train,
                                    bool need_eval, bool need_predict = false);

  data::Target target() const override { return data::Target::kTokens; }
  std::string row_noun() const override { return "sentences"; }
  std::string describe_labels() const override;
  // Every position's logits: max_seq_length x num_labels.
  std::int64_t output_width(std::int64_t num_labels, std::int64_t max_seq_length) const override {
    return num_labels * max_seq_length;
  }
  Metrics score(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const override;
  // predictions.txt, as run_ner writes it: one line of tags per test sentence, a word the
  // model did not see (cut by max_seq_length) tagged O. A tagged test file is scored as the
  // validation file is, with its loss (the mean cross-entropy over the labelled tokens).
  Prediction predict(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const override;

 private:
  struct TokenScores {
    Metrics metrics;  // seqeval's, as score returns them
    double loss = 0;  // mean cross-entropy over the labelled tokens
  };
  TokenScores score_rows(const data::Dataset& dataset, const ModelOutputs& outputs) const;

  bool entity_level_ = false;
  bool test_labelled_ = false;
  std::vector<std::size_t> test_words_;                // words per test sentence
  std::vector<std::vector<std::int32_t>> test_words_of_;  // each test token's word (-1: special)
};

}  // namespace shmtrain::task
