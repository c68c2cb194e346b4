#pragma once
// The sentence-embedding task (--task_name sentence-embedding): sentence-transformers' data as
// SentenceTransformerTrainer takes it. A table's columns, in order, are the inputs (anchor,
// positive, then any number of negatives; or sentence1, sentence2), except a column named
// "label" or "score", the gold score of a scored pair (CoSENT, AnglE). Files: --train_file /
// --validation_file (.csv, .json/.jsonl, .parquet) or a Hub dataset's parquet splits
// (--dataset_name, e.g. sentence-transformers/all-nli with config triplet or pair-score). Each
// text is tokenized on its own, truncated to max_seq_length; an example's texts are rows of one
// micro-batch (data::Target::kTexts), so per_device_train_batch_size counts examples.
// Evaluation, as sentence-transformers' evaluators name their metrics: scored pairs as
// EmbeddingSimilarityEvaluator (<name>_pearson_cosine, <name>_spearman_cosine), triplets as
// TripletEvaluator (<name>_cosine_accuracy: cos(anchor, positive) > cos(anchor, first negative)).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "shmtrain/task/sentence_embedding/beir_folder.hpp"
#include "shmtrain/task/task.hpp"

namespace shmtrain::task {

class SentenceEmbeddingTask final : public Task {
 public:
  static std::unique_ptr<Task> load(const TaskOptions& options, const text::Tokenizer& tokenizer, bool need_train,
                                    bool need_eval);

  data::Target target() const override { return data::Target::kTexts; }
  std::string describe_labels() const override;
  // An example's embeddings: its texts' vectors side by side.
  std::int64_t output_width(std::int64_t, std::int64_t) const override { return texts_ * width_; }
  Metrics score(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const override;
  const RetrievalSet* retrieval() const override { return retrieval_ ? &*retrieval_ : nullptr; }

  std::int64_t texts() const { return texts_; }
  const std::vector<std::string>& columns() const { return columns_; }

 private:
  std::vector<std::string> columns_;  // the text columns, in order
  std::int64_t texts_ = 0;
  std::int64_t width_ = 0;
  bool scored_ = false;
  std::string eval_name_;
  std::vector<double> validation_scores_;
  std::optional<RetrievalSet> retrieval_;
};

}  // namespace shmtrain::task
