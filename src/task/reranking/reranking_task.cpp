#include "shmtrain/task/reranking/reranking_task.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/tokenize_rows.hpp"
#include "shmtrain/task/reranking/reranking_metrics.hpp"
#include "label_column.hpp"
#include "task/sentence_embedding/text_columns.hpp"

namespace shmtrain::task {
namespace {

constexpr const char* kRerankColumns =
    "--task_name reranking: columns query, document, label (pairs), or query, docs, labels (lists)";
constexpr std::int64_t kAtK = 10;  // CrossEncoderRerankingEvaluator's at_k


std::vector<std::size_t> text_columns(const data::Table& table, std::optional<std::size_t> label) {
  std::vector<std::size_t> texts;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (c != label) texts.push_back(c);
  }
  return texts;
}

// (query, document, label) rows: the first two text columns and the label column; the label a
// probability (BinaryCrossEntropyLoss) or a class id (CrossEntropyLoss: class_count returns
// the classes, the largest id + 1, at least 2).
data::Dataset pair_rows(const data::Table& table, const text::Tokenizer& tokenizer, std::size_t max_seq_length,
                        const std::string& loss, std::int64_t* class_count) {
  const std::optional<std::size_t> label = label_column(table);
  const std::vector<std::size_t> texts = text_columns(table, label);
  if (texts.size() != 2 || !label) {
    fail_input("{}: {} takes (query, document, label) rows: two text columns and a 'label' or 'score' column; the "
               "file has columns {}",
               table.source, loss, data::join_names(table.columns));
  }
  data::Dataset out;
  out.source = table.source;
  data::tokenize_rows(table, texts[0], texts[1], tokenizer, max_seq_length, out.examples);
  std::int64_t classes = 2;
  for (std::size_t r = 0; r < table.records.size(); ++r) {
    const data::Record& record = table.records[r];
    const double y = read_score(table, record, *label);
    if (class_count != nullptr) {
      if (y < 0.0 || y != std::floor(y) || y > 1e6) {
        fail_input("{}:{}: label {} is not a class id: CrossEntropyLoss's target is a class 0, 1, ...", table.source,
                   record.line, record.fields[*label].text);
      }
      out.examples[r].label = static_cast<std::int32_t>(y);
      classes = std::max<std::int64_t>(classes, out.examples[r].label + 1);
      continue;
    }
    if (y < 0.0 || y > 1.0) {
      fail_input("{}:{}: label {} is outside [0, 1]: BinaryCrossEntropyLoss's target is a probability", table.source,
                 record.line, record.fields[*label].text);
    }
    out.examples[r].target = static_cast<float>(y);
  }
  if (class_count != nullptr) *class_count = classes;
  return out;
}

// A list cell (a JSON array, as JSON Lines and Parquet's list columns hold one) parsed.
nlohmann::json list_cell(const data::Table& table, const data::Record& record, std::size_t column,
                         const char* what) {
  const data::Value& v = record.fields[column];
  nlohmann::json list;
  if (v.kind == data::ValueKind::other) list = nlohmann::json::parse(v.text, nullptr, false);
  if (!list.is_array()) {
    fail_input("{}:{}: column '{}' must hold a list of {} (sentence-transformers' labeled-list form; JSON Lines or "
               "Parquet)",
               table.source, record.line, table.columns[column], what);
  }
  return list;
}

// Listwise rows: sentence-transformers' labeled-list form (query, docs: a list of texts,
// labels: a number per doc), or (query, positive, negative_1, ...) rows, whose labels are 1
// for the positive and 0 for the rest. An example is the query's candidates as rows of one list.
data::Dataset list_rows(const data::Table& table, const text::Tokenizer& tokenizer, std::size_t max_seq_length,
                        const std::string& loss) {
  const std::optional<std::size_t> label = label_column(table);
  const std::vector<std::size_t> texts = text_columns(table, label);
  if ((label && texts.size() != 2) || (!label && texts.size() < 2)) {
    fail_input("{}: {} takes lists: (query, docs, labels) rows, docs a list of texts and labels a number per doc, or "
               "(query, positive, negative, ...) rows; the file has columns {}",
               table.source, loss, data::join_names(table.columns));
  }
  data::Table pairs;
  pairs.source = table.source;
  pairs.columns = {table.columns[texts[0]], label ? table.columns[texts[1]] : "document"};
  std::vector<std::vector<float>> labels(table.records.size());
  for (std::size_t r = 0; r < table.records.size(); ++r) {
    const data::Record& record = table.records[r];
    const std::string& query = read_text(table, record, texts[0]);
    std::vector<std::string> docs;
    if (label) {
      const nlohmann::json doc_list = list_cell(table, record, texts[1], "texts");
      const nlohmann::json label_list = list_cell(table, record, *label, "numbers");
      if (doc_list.size() != label_list.size()) {
        fail_input("{}:{}: column '{}' has {} texts and column '{}' {} labels: a labeled list needs a label per text",
                   table.source, record.line, table.columns[texts[1]], doc_list.size(), table.columns[*label],
                   label_list.size());
      }
      for (std::size_t k = 0; k < doc_list.size(); ++k) {
        if (!doc_list[k].is_string()) {
          fail_input("{}:{}: column '{}': item {} is not a text", table.source, record.line, table.columns[texts[1]], k);
        }
        if (!label_list[k].is_number() || !std::isfinite(label_list[k].get<double>())) {
          fail_input("{}:{}: column '{}': item {} is not a number", table.source, record.line, table.columns[*label], k);
        }
        docs.push_back(doc_list[k].get<std::string>());
        labels[r].push_back(label_list[k].get<float>());
      }
    } else {
      for (std::size_t k = 1; k < texts.size(); ++k) {
        docs.push_back(read_text(table, record, texts[k]));
        labels[r].push_back(k == 1 ? 1.0f : 0.0f);
      }
    }
    if (docs.empty()) fail_input("{}:{}: the query has no candidate to rank (an empty list)", table.source, record.line);
    for (std::string& doc : docs) {
      data::Record pair;
      pair.line = record.line;
      pair.fields = {data::Value{query, data::ValueKind::string}, data::Value{std::move(doc), data::ValueKind::string}};
      pairs.records.push_back(std::move(pair));
    }
  }
  std::vector<data::Example> rows;
  data::tokenize_rows(pairs, 0, 1, tokenizer, max_seq_length, rows);
  data::Dataset out;
  out.source = table.source;
  out.examples.resize(table.records.size());
  std::size_t next = 0;
  for (std::size_t r = 0; r < table.records.size(); ++r) {
    data::Example& list = out.examples[r];
    for (std::size_t k = 0; k < labels[r].size(); ++k, ++next) {
      const data::Example& row = rows[next];
      list.input_ids.insert(list.input_ids.end(), row.input_ids.begin(), row.input_ids.end());
      list.token_type_ids.insert(list.token_type_ids.end(), row.token_type_ids.begin(), row.token_type_ids.end());
      list.attention_mask.insert(list.attention_mask.end(), row.attention_mask.begin(), row.attention_mask.end());
      list.choice_lengths.push_back(static_cast<std::int32_t>(row.input_ids.size()));
    }
    list.choice_targets = std::move(labels[r]);
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
  const std::string loss = options.reranking_loss.empty() ? "BinaryCrossEntropyLoss" : options.reranking_loss;
  const bool in_batch = loss == "MultipleNegativesRankingLoss";
  const bool lists = loss == "ListNetLoss" || loss == "LambdaLoss" || in_batch;
  const bool classes = loss == "CrossEntropyLoss";
  if (lists) task->train_target_ = data::Target::kList;
  if (classes) task->target_ = task->train_target_ = data::Target::kClass;
  if (need_train) {
    const data::Table table =
        read_split(hub ? &hub->train : nullptr, options.train_file, "--train_file", kRerankColumns);
    std::int64_t class_count = 0;
    task->train_ = in_batch ? task->in_batch_rows(table, tokenizer, options)
                   : lists  ? list_rows(table, tokenizer, options.max_seq_length, loss)
                            : pair_rows(table, tokenizer, options.max_seq_length, loss, classes ? &class_count : nullptr);
    task->set_classes(class_count);
    data::keep_first(*task->train_, options.max_train_samples);
    if (task->train_->examples.empty()) fail_input("{}: no examples", task->train_->source);
  }
  if (!need_eval) return task;
  if (classes) {  // CrossEncoderClassificationEvaluator over (query, document, class) rows
    if (options.validation_file.empty() && (hub == nullptr || hub->validation.empty())) {
      fail_input("--task_name reranking --loss CrossEntropyLoss --do_eval needs --validation_file: (query, "
                 "document, label) rows, the label a class id");
    }
    std::int64_t class_count = 0;
    task->validation_ = pair_rows(read_split(hub ? &hub->validation : nullptr, options.validation_file,
                                             "--validation_file", kRerankColumns),
                                  tokenizer, options.max_seq_length, loss, &class_count);
    data::keep_first(*task->validation_, options.max_eval_samples);
    task->set_classes(class_count);
    task->eval_name_ = !options.eval_name.empty() ? options.eval_name : options.validation_file.stem().string();
    return task;
  }
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

void RerankingTask::set_classes(std::int64_t count) {
  if (target_ != data::Target::kClass) return;
  // CrossEncoder(model, num_labels=K): the classes 0..K-1, named as transformers names them; the
  // most any split holds.
  labels_.regression = false;
  for (auto k = static_cast<std::int64_t>(labels_.names.size()); k < count; ++k) {
    labels_.names.push_back(fmt::format("LABEL_{}", k));
  }
}

Metrics RerankingTask::score(const ModelOutputs& outputs, const std::filesystem::path&) const {
  if (target_ == data::Target::kClass) {
    // CrossEncoderClassificationEvaluator with classes: argmax of the logits (the first of equal
    // ones, as numpy's), then scikit-learn's f1_score, macro, micro and weighted.
    std::vector<std::int32_t> truth, predicted;
    for (std::size_t r = 0; r < validation_->examples.size(); ++r) {
      const float* row = outputs.values.data() + r * static_cast<std::size_t>(outputs.width);
      predicted.push_back(static_cast<std::int32_t>(std::max_element(row, row + outputs.width) - row));
      truth.push_back(validation_->examples[r].label);
    }
    const reranking::F1Scores f1 = reranking::f1_scores(truth, predicted);
    return {{eval_name_ + "_f1_macro", f1.macro}, {eval_name_ + "_f1_micro", f1.micro},
            {eval_name_ + "_f1_weighted", f1.weighted}};
  }
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
