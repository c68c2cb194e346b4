#include "shmtrain/task/reranking/reranking_task.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/tokenize_rows.hpp"
#include "shmtrain/task/reranking/reranking_metrics.hpp"
#include "task/sentence_embedding/text_columns.hpp"

namespace shmtrain::task {
namespace {

constexpr const char* kRerankColumns = "--task_name reranking: columns query, document, label (a number in [0, 1])";
constexpr std::int64_t kAtK = 10;  // CrossEncoderRerankingEvaluator's at_k

// (query, document, label) rows: the first two text columns and the label column.
data::Dataset pair_rows(const data::Table& table, const text::Tokenizer& tokenizer, std::size_t max_seq_length) {
  std::vector<std::size_t> texts;
  std::optional<std::size_t> label;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (is_score_column(table.columns[c])) {
      label = c;
    } else {
      texts.push_back(c);
    }
  }
  if (texts.size() != 2 || !label) {
    fail_input("{}: BinaryCrossEntropyLoss takes (query, document, label) rows: two text columns and a 'label' or "
               "'score' column; the file has columns {} (lists of candidates, the listwise form, are not read yet)",
               table.source, data::join_names(table.columns));
  }
  data::Dataset out;
  out.source = table.source;
  data::tokenize_rows(table, texts[0], texts[1], tokenizer, max_seq_length, out.examples);
  for (std::size_t r = 0; r < table.records.size(); ++r) {
    const data::Record& record = table.records[r];
    const double y = read_score(table, record, *label);
    if (y < 0.0 || y > 1.0) {
      fail_input("{}:{}: label {} is outside [0, 1]: BinaryCrossEntropyLoss's target is a probability", table.source,
                 record.line, record.fields[*label].text);
    }
    out.examples[r].target = static_cast<float>(y);
  }
  return out;
}

// A sample's list of texts: a JSON array of strings (a lone string is a list of one, as the
// evaluator takes "positive").
std::vector<std::string> text_list(const data::JsonLines& file, const data::JsonRow& row, const char* key,
                                   bool required) {
  const auto found = row.object.find(key);
  if (found == row.object.end() || found->is_null()) {
    if (required) fail_input("{}:{}: a reranking sample needs '{}'", file.source, row.line, key);
    return {};
  }
  if (found->is_string()) return {found->get<std::string>()};
  if (!found->is_array()) fail_input("{}:{}: '{}' must be a list of texts", file.source, row.line, key);
  std::vector<std::string> out;
  for (const auto& item : *found) {
    if (!item.is_string()) fail_input("{}:{}: '{}' must be a list of texts", file.source, row.line, key);
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace

std::unique_ptr<Task> RerankingTask::load(const TaskOptions& options, const text::Tokenizer& tokenizer,
                                          bool need_train, bool need_eval) {
  const DatasetSplits* hub = options.dataset ? &*options.dataset : nullptr;
  auto task = std::make_unique<RerankingTask>();
  task->name_ = "reranking";
  task->labels_.regression = true;
  if (need_train) {
    task->train_ = pair_rows(read_split(hub ? &hub->train : nullptr, options.train_file, "--train_file", kRerankColumns),
                             tokenizer, options.max_seq_length);
    data::keep_first(*task->train_, options.max_train_samples);
    if (task->train_->examples.empty()) fail_input("{}: no examples", task->train_->source);
  }
  if (!need_eval) return task;
  if (options.validation_file.empty()) {
    fail_input("--task_name reranking --do_eval needs --validation_file: JSON Lines of {{\"query\", \"positive\": "
               "[...], \"negative\": [...]}} or {{\"query\", \"positive\": [...], \"documents\": [...]}}");
  }
  const data::JsonLines file = data::read_json_lines(options.validation_file, "the --validation_file");
  data::Table pairs;
  pairs.source = file.source;
  pairs.columns = {"query", "document"};
  for (const data::JsonRow& row : file.rows) {
    if (options.max_eval_samples && task->samples_.size() >= *options.max_eval_samples) break;
    const auto query = row.object.find("query");
    if (query == row.object.end() || !query->is_string()) {
      fail_input("{}:{}: a reranking sample needs 'query', a text", file.source, row.line);
    }
    const std::vector<std::string> positives = text_list(file, row, "positive", true);
    const bool has_negative = row.object.contains("negative");
    const bool has_documents = row.object.contains("documents");
    if (has_negative == has_documents) {
      fail_input("{}:{}: a reranking sample needs exactly one of 'negative' and 'documents'", file.source, row.line);
    }
    Sample sample;
    sample.first = static_cast<std::int64_t>(pairs.records.size());
    sample.has_documents = has_documents;
    // The candidates, as the evaluator lists them: the positives, then the negatives, or the
    // documents that are not positives (always_rerank_positives).
    std::vector<std::string> candidates = positives;
    sample.relevant.assign(positives.size(), 1);
    const std::vector<std::string> others = text_list(file, row, has_documents ? "documents" : "negative", true);
    std::size_t in_documents = 0;
    for (const std::string& doc : others) {
      const bool positive = std::find(positives.begin(), positives.end(), doc) != positives.end();
      if (has_documents) {
        sample.base_relevant.push_back(positive ? 1 : 0);
        in_documents += positive ? 1 : 0;
        if (positive) continue;
      }
      candidates.push_back(doc);
      sample.relevant.push_back(0);
    }
    // The evaluator's base ranking: positives missing from the documents end it; without a
    // positive among the documents it scores 0 (base_relevant left empty).
    if (has_documents && in_documents > 0) {
      for (std::size_t k = in_documents; k < positives.size(); ++k) sample.base_relevant.push_back(1);
    } else {
      sample.base_relevant.clear();
    }
    if (candidates.empty()) fail_input("{}:{}: the sample has no candidate to rank", file.source, row.line);
    for (const std::string& doc : candidates) {
      data::Record record;
      record.line = row.line;
      record.fields = {data::Value{query->get<std::string>(), data::ValueKind::string},
                       data::Value{doc, data::ValueKind::string}};
      pairs.records.push_back(std::move(record));
    }
    task->samples_.push_back(std::move(sample));
  }
  if (task->samples_.empty()) fail_input("{}: no reranking samples", file.source);
  data::Dataset validation;
  validation.source = file.source;
  data::tokenize_rows(pairs, 0, 1, tokenizer, options.max_seq_length, validation.examples);
  task->validation_ = std::move(validation);
  task->eval_name_ = !options.eval_name.empty() ? options.eval_name : options.validation_file.stem().string();
  return task;
}

std::string RerankingTask::describe_labels() const { return "a score per (query, document) pair"; }

std::string RerankingTask::describe_validation() const { return fmt::format(" of {} queries", samples_.size()); }

Metrics RerankingTask::score(const ModelOutputs& outputs, const std::filesystem::path&) const {
  double map = 0, mrr = 0, ndcg = 0, base_map = 0, base_mrr = 0, base_ndcg = 0;
  std::int64_t documents = 0;  // the samples with a first-stage ranking: the base figures' mean is over them
  for (const Sample& s : samples_) {
    std::vector<double> scores;
    for (std::size_t k = 0; k < s.relevant.size(); ++k) {
      const float logit = outputs.values[static_cast<std::size_t>((s.first + static_cast<std::int64_t>(k)) * outputs.width)];
      scores.push_back(1.0f / (1.0f + std::exp(-logit)));  // CrossEncoder.predict's Sigmoid, in float32
    }
    const reranking::QueryFigures f = reranking::rerank_figures(s.relevant, scores, kAtK);
    map += f.ap;
    mrr += f.mrr;
    ndcg += f.ndcg;
    if (s.has_documents) {
      ++documents;
      if (!s.base_relevant.empty()) {  // no positive among the documents: 0, as the evaluator scores it
        std::vector<double> ranks;
        for (std::size_t k = s.base_relevant.size(); k > 0; --k) ranks.push_back(static_cast<double>(k));
        const reranking::QueryFigures b = reranking::rerank_figures(s.base_relevant, ranks, kAtK);
        base_map += b.ap;
        base_mrr += b.mrr;
        base_ndcg += b.ndcg;
      }
    }
  }
  const auto n = static_cast<double>(samples_.size());
  const std::string at = std::to_string(kAtK);
  Metrics out = {{eval_name_ + "_map", map / n}, {eval_name_ + "_mrr@" + at, mrr / n}, {eval_name_ + "_ndcg@" + at, ndcg / n}};
  if (documents > 0) {
    const auto m = static_cast<double>(documents);
    out.push_back({eval_name_ + "_base_map", base_map / m});
    out.push_back({eval_name_ + "_base_mrr@" + at, base_mrr / m});
    out.push_back({eval_name_ + "_base_ndcg@" + at, base_ndcg / m});
  }
  return out;
}

}  // namespace shmtrain::task
