#pragma once
// A task of Hugging Face's example scripts: which files it reads and how they become the rows
// the model trains on, which head the model needs (the rows' data::Target), and how the
// model's outputs over the validation rows become metrics and prediction files. The trainer
// runs any task through this interface without knowing which one it is.
//
// Tasks (one folder each):
//   task/glue/   run_glue.py: GLUE's TSV folders (--task_name mrpc|sst2|qqp|qnli|rte|cola|stsb|mnli,
//                --data_dir) or the user's own files (--train_file, --validation_file: .csv,
//                .tsv, .json/.jsonl, text or pre-tokenized), sequence classification or regression;
//   task/squad/  run_qa.py: SQuAD v1.1 or 2.0 JSON (--task_name squad [--version_2_with_negative]),
//                one row per context window;
//   task/ner/    run_ner.py: CoNLL or JSON Lines word/tag files (--task_name ner|pos|chunk),
//                a class per token;
//   task/mlm/    run_mlm.py: text (--task_name mlm: .txt lines, a text column, a Hub dataset such as
//                wikitext) in blocks or lines, masked per batch; eval_loss and perplexity;
//   task/swag/   run_swag.py: SWAG's multiple choice (--task_name swag), 4 endings per example;
//   task/sentence_embedding/  sentence-transformers' training data (--task_name
//                sentence-embedding): an example's texts, and a score for scored pairs.
//
// Every problem with the files is an InputError "FILE:LINE: problem" (LINE 1-based, the
// physical line; for a CSV record spanning lines, the line where it starts), "FILE: JSON.PATH:
// problem" for SQuAD files, or "FILE: problem".
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "shmtrain/data/batch.hpp"
#include "shmtrain/data/dataset.hpp"
#include "shmtrain/text/tokenizer.hpp"

namespace shmtrain::task {

// A dataset of the local Hugging Face cache (--dataset_name), found by train/ through io's
// cache: the parquet shards of each split, in shard order. Empty splits are absent.
struct DatasetSplits {
  std::string name;  // "nyu-mll/glue (mrpc)", for messages
  std::string validation_name;  // the repo's name and the validation split's: "all-nli-dev"
  std::vector<std::filesystem::path> train;
  std::vector<std::filesystem::path> validation;  // MNLI: validation_matched
  std::vector<std::filesystem::path> test;        // MNLI: test_matched
  std::vector<std::filesystem::path> validation_mismatched;  // MNLI only
};

// A NanoBEIR-style Hub dataset (sentence-transformers' NanoBEIREvaluator reads its three
// configs' train split): the parquet shards of its corpus ({_id, text}), queries ({_id, text})
// and qrels ({query-id, corpus-id}: every pair relevant).
struct RetrievalHub {
  std::string repo_id;
  std::vector<std::filesystem::path> corpus, queries, qrels;
};

struct TaskOptions {
  std::string task_name;             // "" (custom files), a GLUE task, or squad
  std::filesystem::path data_dir;    // with task_name: the task's folder of files
  std::filesystem::path train_file;  // the user's own files (run_glue's --train_file/--validation_file)
  std::filesystem::path validation_file;
  std::filesystem::path test_file;  // --do_predict's data; labels optional
  std::optional<DatasetSplits> dataset;  // instead of data_dir and the files
  std::size_t max_seq_length = 128;
  std::optional<std::size_t> max_train_samples;  // keep the first N rows (the scripts' options)
  std::optional<std::size_t> max_eval_samples;
  std::optional<std::size_t> max_predict_samples;
  std::size_t doc_stride = 128;  // squad: overlap of a context's windows, in tokens (run_qa's)
  std::int64_t n_best_size = 20;       // squad post-processing (run_qa's)
  std::int64_t max_answer_length = 30;
  bool version_2_with_negative = false;  // squad: SQuAD 2.0, questions without answers allowed
  double null_score_diff_threshold = 0.0;  // squad v2: predict "" when null - best span > this
  // Token classification (run_ner.py's options and defaults).
  std::string text_column_name;   // "": tokens
  std::string label_column_name;  // "": <task_name>_tags
  bool label_all_tokens = false;  // a word's later sub-tokens take its label (B- as I-) instead of -100
  bool return_entity_level_metrics = false;
  // Names of integer tags, tag i -> label_names[i] (run_ner's ClassLabel names); empty: the
  // integers themselves.
  std::vector<std::string> label_names;
  // The model's id2label, for a run that evaluates without training (its tags must be among them).
  std::vector<std::string> model_labels;
  // Masked LM (run_mlm.py's options and defaults).
  double mlm_probability = 0.15;
  bool whole_word_mask = false;
  bool line_by_line = false;  // each non-blank line an example, instead of run_mlm's group_texts blocks
  std::int64_t validation_split_percentage = 5;  // of train, when there is no validation split or file
  std::uint64_t seed = 42;  // the masks' (and nothing else's)
  // Sentence embeddings: the loss scores pairs (CoSENT, AnglE: a score column is required), the
  // embedding's width (an example's outputs are its texts' vectors), the evaluator's name in
  // the metrics ("": the validation file's stem or the dataset's name).
  bool scored_pairs = false;
  // Reranking: the loss (sentence-transformers' class name; "" BinaryCrossEntropyLoss), which
  // decides the rows' form: (query, document, label) pairs, pairs with a class, or lists.
  std::string reranking_loss;
  std::int64_t num_negatives = 4;  // reranking's MultipleNegativesRankingLoss
  std::int64_t embedding_width = 0;
  std::string eval_name;
  // An information-retrieval evaluation in a BEIR folder, or in a NanoBEIR-style Hub dataset
  // (ir_eval_hub, resolved by train: its corpus, queries and qrels configs), named ir_eval_name
  // ("": the folder's or the dataset's name); its queries and documents prefixed by
  // ir_query_prompt and ir_corpus_prompt (InformationRetrievalEvaluator's query_prompt and
  // corpus_prompt).
  std::filesystem::path ir_eval_dir;
  std::optional<RetrievalHub> ir_eval_hub;
  std::string ir_eval_name;
  std::string ir_query_prompt;
  std::string ir_corpus_prompt;
  // sentence-transformers' prompts: column -> prefix put before its texts; the key "" is every
  // column's.
  std::map<std::string, std::string> prompts;
};

struct RetrievalSet;  // task/sentence_embedding/beir_folder.hpp

// Named results of an evaluation, in the order the script reports them, without "eval_".
using Metrics = std::vector<std::pair<std::string, double>>;

// The model's outputs over the validation rows, gathered from every worker: row i (dataset
// order) is values[i * width, (i + 1) * width).
struct ModelOutputs {
  std::span<const float> values;
  std::int64_t width = 0;
};

// What --do_predict wrote, and the test rows' metrics where the script computes them.
struct Prediction {
  std::filesystem::path file;
  // Without a prefix; empty when the test rows carry no labels, and for run_glue, which drops
  // the label column before it predicts.
  Metrics metrics;
  // How the script's predict step names them: run_ner passes metric_key_prefix "predict";
  // run_qa's QuestionAnsweringTrainer.predict keeps its default "test", and run_qa adds
  // predict_samples.
  std::string prefix = "predict";
  bool with_samples = false;
};

// -log softmax(logits)[label], in double: the loss of one row (or token) as the models'
// CrossEntropyLoss computes it.
double cross_entropy(std::span<const float> logits, std::int32_t label);

class Task {
 public:
  virtual ~Task() = default;

  // The lower-cased task name ("mrpc", "squad"), "" for custom files.
  const std::string& name() const { return name_; }
  // The classes (config.json's id2label) or a regression; empty for span tasks.
  const data::LabelSet& labels() const { return labels_; }
  // Loaded when asked for (need_train / need_eval of load_task).
  const std::optional<data::Dataset>& train() const { return train_; }
  const std::optional<data::Dataset>& validation() const { return validation_; }
  // --do_predict's rows (loaded when asked for), labelled or not.
  const std::optional<data::Dataset>& test() const { return test_; }
  // MNLI's second validation set (dev_mismatched.tsv, validation_mismatched) as a task of its
  // own, evaluated after training as run_glue does, its metrics suffixed "_mm"; null for the
  // other tasks and when not evaluating.
  const Task* mismatched() const { return mismatched_.get(); }

  // What the rows teach: it selects the model's head.
  virtual data::Target target() const = 0;
  // What the training rows are collated as, when it differs from the evaluation's: listwise
  // reranking trains on lists (kList) and scores (query, document) rows (kRegression).
  virtual data::Target train_target() const { return target(); }
  // Training examples made for each batch from the rows the sampler dealt (`rows`, indices into
  // train()), where a row's examples depend on the batch it lands in: the cross-encoder
  // MultipleNegativesRankingLoss pairs each query with documents of the batch's other rows,
  // drawn with `seed`. nullopt (the default): train()'s rows are collated as they are.
  virtual std::optional<data::Dataset> batch_examples(std::span<const std::int64_t> rows, std::uint64_t seed) const;
  // "examples", or "windows" where one input becomes several rows.
  virtual std::string row_noun() const { return "examples"; }
  // The data line of the run's plan: "mrpc | train 3668 examples | eval 408 examples | 2 labels (...)".
  std::string describe() const;
  // Its last part: "2 labels (not_equivalent, equivalent)", "regression", ...
  virtual std::string describe_labels() const;
  // What follows the validation row count there (squad: " of 10570 questions").
  virtual std::string describe_validation() const { return {}; }
  // Floats per validation row the model puts out: num_labels for a sequence head; a value per
  // token and output for a token head (max_seq_length positions: shorter rows are filled with
  // missing_output()).
  virtual std::int64_t output_width(std::int64_t num_labels, std::int64_t max_seq_length) const;
  virtual float missing_output() const { return 0.0f; }
  // The metrics of the validation outputs; writes the task's prediction files into
  // output_dir when it is not empty (rank 0 only, so the others pass none).
  virtual Metrics score(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const = 0;
  // --do_predict: writes the task's prediction file for the test rows' outputs into
  // output_dir (rank 0), as the script's predict step does, and scores labelled test rows
  // where the script does. Throws InputError for a task that cannot predict yet.
  virtual Prediction predict(const ModelOutputs& outputs, const std::filesystem::path& output_dir) const;
  // Called on every batch the trainer and the evaluation collate from this task's rows, before
  // the model sees it: masked LM draws its masks here, a function of (seed, row, epoch); the
  // evaluation passes kEvaluationEpoch, so every evaluation scores the same masks. A no-op
  // elsewhere.
  virtual void prepare_batch(data::Batch& batch, std::uint64_t epoch) const;
  // Queries and a corpus the model's embeddings are to rank at each evaluation
  // (InformationRetrievalEvaluator's), beside or instead of the validation rows; null for most.
  virtual const RetrievalSet* retrieval() const { return nullptr; }
  static constexpr std::uint64_t kEvaluationEpoch = ~std::uint64_t{0};

 protected:
  std::string name_;
  data::LabelSet labels_;
  std::optional<data::Dataset> train_;
  std::optional<data::Dataset> validation_;
  std::optional<data::Dataset> test_;
  std::shared_ptr<const Task> mismatched_;
};

// Reads and tokenizes (truncation longest_first to max_seq_length, no padding) the task's
// files: task_name + data_dir, or train_file (+ validation_file when need_eval). Tokenizes in
// parallel (oneTBB); the rows keep the file order.
std::unique_ptr<Task> load_task(const TaskOptions& options, const text::Tokenizer& tokenizer, bool need_train,
                                bool need_eval, bool need_predict = false);

// The GLUE task names load_task knows (task/glue/).
const std::vector<std::string>& glue_task_names();

}  // namespace shmtrain::task
