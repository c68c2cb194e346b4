#pragma once
// The reranking task (--task_name reranking): a cross-encoder trained as sentence-transformers'
// CrossEncoderTrainer trains one, a <Family>ForSequenceClassification with one score per
// (query, document) pair, the pair tokenized as the family's tokenizer pairs two texts.
// Training rows (.csv, .json/.jsonl, .parquet or a Hub dataset's parquet splits; the label
// column the first of label, labels, score, scores): by the loss (TaskOptions::reranking_loss)
// - BinaryCrossEntropyLoss: (query, document, label) rows, the label in [0, 1];
// - CrossEntropyLoss: the same with a class id 0, 1, ... (classes: the largest + 1), the model a
//   pair classifier (target kClass);
// - ListNetLoss, LambdaLoss: lists (train_target kList): sentence-transformers' labeled-list rows
//   (query, docs: [...], labels: [...]) or (query, positive, negative, ...) rows labelled 1, 0, ...
// - MultipleNegativesRankingLoss: (query, positive, negative, ...) rows without labels, each
//   made a list per batch (batch_examples).
// Evaluation (CrossEntropyLoss: CrossEncoderClassificationEvaluator over (query, document, class)
// rows, <name>_f1_macro, _f1_micro, _f1_weighted as scikit-learn's f1_score gives them, the
// class the logits' argmax). Otherwise CrossEncoderRerankingEvaluator over --validation_file samples, JSON Lines of
// {"query", "positive": [...], "negative": [...]} or {"query", "positive": [...],
// "documents": [...]} (documents: a first-stage ranking, best first, positives among them or
// not): every candidate is scored with the query (positives first, then the negatives, or the
// documents that are not positives), and each query's MAP, MRR@10 and NDCG@10
// (reranking_metrics.hpp) are averaged as <name>_map, <name>_mrr@10, <name>_ndcg@10; with
// documents also the first-stage ranking's own figures, <name>_base_map etc. (averaged over the
// samples with documents, as the evaluator averages them). The scores are the
// sigmoid of the logits in float32, as CrossEncoder.predict returns them.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shmtrain/data/table.hpp"
#include "shmtrain/task/task.hpp"

namespace shmtrain::task {

class RerankingTask final : public Task {
 public:
  static std::unique_ptr<Task> load(const TaskOptions& options, const text::Tokenizer& tokenizer, bool need_train,
                                    bool need_eval);

  data::Target target() const override { return target_; }
  data::Target train_target() const override { return train_target_; }
  // MultipleNegativesRankingLoss: each row's list, its query paired with its positive, then
  // num_negatives documents of the batch's other rows (all of them when there are no more;
  // drawn uniformly without replacement from every other row's positive and negatives, as
  // torch.multinomial draws them, from `seed`), then its own negatives; nullopt for the other
  // losses.
  std::optional<data::Dataset> batch_examples(std::span<const std::int64_t> rows, std::uint64_t seed) const override;
  std::string describe_labels() const override;
  std::string describe_validation() const override;
  Metrics score(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const override;

  // One evaluation query: its candidates are validation rows [first, first + relevant.size()).
  struct Sample {
    std::int64_t first = 0;
    std::vector<std::uint8_t> relevant;
    // documents form: whether each document of the first stage's ranking is a positive, and the
    // positives missing from it (they end that ranking).
    std::vector<std::uint8_t> base_relevant;
    bool has_documents = false;
  };

 private:
  // CrossEntropyLoss: the labels LABEL_0 .. LABEL_{count - 1} (grown, never shrunk).
  void set_classes(std::int64_t count);
  // MultipleNegativesRankingLoss's rows read and tokenized text by text (queries_, documents_).
  data::Dataset in_batch_rows(const data::Table& table, const text::Tokenizer& tokenizer, const TaskOptions& options);

  // A score per pair (kRegression), or a class (kClass: CrossEntropyLoss); training rows are
  // lists (kList) for the listwise losses.
  data::Target target_ = data::Target::kRegression;
  data::Target train_target_ = data::Target::kRegression;
  std::string eval_name_;
  // MultipleNegativesRankingLoss's rows, each text's ids without special tokens (the pairs are
  // assembled per batch, truncated longest_first as the tokenizer truncates a pair).
  const text::Tokenizer* tokenizer_ = nullptr;
  std::size_t max_seq_length_ = 0;
  std::int64_t num_negatives_ = 0;
  std::vector<std::vector<std::int32_t>> queries_;
  std::vector<std::vector<std::vector<std::int32_t>>> documents_;  // per row: positive, negatives
  std::vector<Sample> samples_;
};

}  // namespace shmtrain::task
