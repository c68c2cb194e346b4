#include "shmtrain/task/sentence_embedding/sentence_task.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <string>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/parquet_split.hpp"
#include "shmtrain/data/table.hpp"
#include "shmtrain/data/tokenize_rows.hpp"
#include "shmtrain/task/glue/metrics.hpp"
#include "text_columns.hpp"

namespace shmtrain::task {
namespace {

constexpr const char* kSentenceColumns =
    "--task_name sentence-embedding: columns anchor, positive[, negatives...] or sentence1, sentence2, score";

struct TextRows {
  data::Dataset dataset;
  std::vector<std::string> columns;
  std::vector<double> scores;  // per example, when the table has a score column
};

// The prefix of a column's texts: its own prompt, else the prompt of every column.
std::string prompt_of(const std::map<std::string, std::string>& prompts, const std::string& column) {
  if (const auto own = prompts.find(column); own != prompts.end()) return own->second;
  if (const auto all = prompts.find(""); all != prompts.end()) return all->second;
  return {};
}

TextRows text_rows(const data::Table& table, const text::Tokenizer& tokenizer, std::size_t max_seq_length,
                   bool scored_pairs, const std::map<std::string, std::string>& prompts) {
  TextRows out;
  std::vector<std::size_t> text_columns;
  std::optional<std::size_t> score_column;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (is_score_column(table.columns[c])) {
      score_column = c;
    } else {
      text_columns.push_back(c);
      out.columns.push_back(table.columns[c]);
    }
  }
  if (scored_pairs && !score_column) {
    fail_input("{}: a scored-pair loss needs a 'score' or 'label' column beside the two sentences (columns: {})",
               table.source, data::join_names(table.columns));
  }
  if (scored_pairs && text_columns.size() != 2) {
    fail_input("{}: a scored-pair loss takes two text columns and a score; the file has {} text columns ({})",
               table.source, text_columns.size(), data::join_names(out.columns));
  }
  if (text_columns.size() < 2) {
    fail_input("{}: {} text column ({}); the loss needs at least an anchor and a positive", table.source,
               text_columns.size(), data::join_names(out.columns));
  }
  for (const auto& [column, prompt] : prompts) {
    if (!column.empty() && std::find(out.columns.begin(), out.columns.end(), column) == out.columns.end()) {
      fail_input("--prompts: column '{}' is not a text column of {} ({})", column, table.source,
                 data::join_names(out.columns));
    }
  }
  std::vector<std::string> column_prompts;
  for (const std::string& column : out.columns) column_prompts.push_back(prompt_of(prompts, column));
  out.dataset.source = table.source;
  out.dataset.examples.resize(table.records.size());
  if (score_column) out.scores.resize(table.records.size());
  data::for_each_record(table, [&](std::size_t r) {
    const data::Record& record = table.records[r];
    data::Example& example = out.dataset.examples[r];
    if (score_column) {
      out.scores[r] = read_score(table, record, *score_column);
      example.target = static_cast<float>(out.scores[r]);
    }
    text::Encoding encoding;
    for (std::size_t k = 0; k < text_columns.size(); ++k) {
      const std::string& text = read_text(table, record, text_columns[k]);
      example.text_keys.push_back(std::hash<std::string>{}(text));
      tokenizer.encode(column_prompts[k].empty() ? text : column_prompts[k] + text, std::nullopt,
                       text::EncodeOptions{max_seq_length, false}, encoding);
      data::append_text(example, encoding);
    }
  });
  return out;
}

double cosine(std::span<const float> x, std::span<const float> y) {
  double xy = 0, xx = 0, yy = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    xy += static_cast<double>(x[k]) * y[k];
    xx += static_cast<double>(x[k]) * x[k];
    yy += static_cast<double>(y[k]) * y[k];
  }
  // util.pairwise_cos_sim: each side normalised with its norm clamped at 1e-12.
  return xy / (std::max(std::sqrt(xx), 1e-12) * std::max(std::sqrt(yy), 1e-12));
}

}  // namespace

std::unique_ptr<Task> SentenceEmbeddingTask::load(const TaskOptions& options, const text::Tokenizer& tokenizer,
                                                  bool need_train, bool need_eval) {
  if (!options.data_dir.empty()) {
    fail_input("--task_name sentence-embedding reads --train_file/--validation_file or --dataset_name, not --data_dir");
  }
  if (options.embedding_width <= 0) throw Error("SentenceEmbeddingTask: the embedding's width is not set");
  const DatasetSplits* hub = options.dataset ? &*options.dataset : nullptr;
  auto task = std::make_unique<SentenceEmbeddingTask>();
  task->name_ = "sentence-embedding";
  task->width_ = options.embedding_width;
  task->scored_ = options.scored_pairs;
  auto split = [&](const std::vector<std::filesystem::path>* shards, const std::filesystem::path& file,
                   const char* flag, const std::optional<std::size_t>& max_samples) {
    TextRows rows = text_rows(read_split(shards, file, flag, kSentenceColumns), tokenizer, options.max_seq_length, options.scored_pairs,
                              options.prompts);
    data::keep_first(rows.dataset, max_samples);
    if (rows.dataset.examples.empty()) fail_input("{}: no examples", rows.dataset.source);
    if (max_samples && rows.scores.size() > *max_samples) rows.scores.resize(*max_samples);
    return rows;
  };
  if (need_train) {
    TextRows rows = split(hub ? &hub->train : nullptr, options.train_file, "--train_file", options.max_train_samples);
    task->columns_ = rows.columns;
    task->train_ = std::move(rows.dataset);
  }
  const bool retrieval = !options.ir_eval_dir.empty() || options.ir_eval_hub.has_value();
  if (need_eval && retrieval) {
    RetrievalSet set = options.ir_eval_hub ? read_beir_hub(*options.ir_eval_hub, options.ir_eval_name)
                                           : read_beir_folder(options.ir_eval_dir, options.ir_eval_name);
    // InformationRetrievalEvaluator's query_prompt and corpus_prompt: put before each text.
    for (std::string& q : set.queries) q = options.ir_query_prompt + q;
    for (std::string& d : set.corpus) d = options.ir_corpus_prompt + d;
    task->retrieval_ = std::move(set);
  }
  // With a retrieval set, the validation rows are optional.
  if (need_eval && (!retrieval || !options.validation_file.empty() || hub != nullptr)) {
    TextRows rows = split(hub ? &hub->validation : nullptr, options.validation_file, "--validation_file",
                          options.max_eval_samples);
    if (need_train && rows.columns.size() != task->columns_.size()) {
      fail_input("{}: {} text columns ({}) where the training data has {} ({})", rows.dataset.source,
                 rows.columns.size(), data::join_names(rows.columns), task->columns_.size(),
                 data::join_names(task->columns_));
    }
    task->columns_ = rows.columns;
    task->validation_scores_ = std::move(rows.scores);
    task->eval_name_ = !options.eval_name.empty() ? options.eval_name
                       : hub != nullptr           ? hub->validation_name
                                                  : options.validation_file.stem().string();
    task->validation_ = std::move(rows.dataset);
  }
  task->texts_ = static_cast<std::int64_t>(task->columns_.size());
  return task;
}

std::string SentenceEmbeddingTask::describe_labels() const {
  return fmt::format("{} texts ({}){}", texts_, data::join_names(columns_), scored_ ? " and a score" : "");
}

Metrics SentenceEmbeddingTask::score(const ModelOutputs& outputs, const std::filesystem::path&) const {
  const auto n = static_cast<std::int64_t>(validation_->examples.size());
  auto text = [&](std::int64_t example, std::int64_t k) {
    return outputs.values.subspan(static_cast<std::size_t>(example * outputs.width + k * width_),
                                  static_cast<std::size_t>(width_));
  };
  const std::string prefix = eval_name_.empty() ? "" : eval_name_ + "_";
  Metrics metrics;
  if (!validation_scores_.empty() && texts_ == 2) {
    std::vector<double> similarity(static_cast<std::size_t>(n));
    for (std::int64_t e = 0; e < n; ++e) similarity[static_cast<std::size_t>(e)] = cosine(text(e, 0), text(e, 1));
    metrics.emplace_back(prefix + "pearson_cosine", pearson(validation_scores_, similarity));
    metrics.emplace_back(prefix + "spearman_cosine", spearman(validation_scores_, similarity));
  } else if (texts_ >= 3) {
    std::int64_t right = 0;
    for (std::int64_t e = 0; e < n; ++e) right += cosine(text(e, 0), text(e, 1)) > cosine(text(e, 0), text(e, 2)) ? 1 : 0;
    metrics.emplace_back(prefix + "cosine_accuracy", static_cast<double>(right) / static_cast<double>(n));
  }
  return metrics;
}

}  // namespace shmtrain::task
