// The cross-encoder MultipleNegativesRankingLoss's rows (reranking_task.hpp): each text tokenized
// alone, each batch's lists assembled from the rows the sampler dealt.
#include <algorithm>
#include <random>

#include <fmt/format.h>

#include "label_column.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/data/tokenize_rows.hpp"
#include "shmtrain/task/reranking/reranking_task.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"
#include "task/sentence_embedding/text_columns.hpp"

namespace shmtrain::task {
namespace {

// One (query, document) row from the two texts' ids: truncated longest_first to max_seq_length
// and assembled with the tokenizer's special tokens, as encode(query, document) gives it.
data::Example pair_example(const text::Tokenizer& tokenizer, std::span<const std::int32_t> query,
                           std::span<const std::int32_t> document, std::size_t max_seq_length) {
  const std::size_t specials = tokenizer.num_special_tokens(true);
  const std::size_t budget = max_seq_length > specials ? max_seq_length - specials : 0;
  const auto [a, b] = text::longest_first_lengths(query.size(), document.size(), budget);
  text::Encoding encoding;
  tokenizer.assemble(query.first(a), document.first(b), encoding);
  data::Example out;
  out.input_ids = std::move(encoding.input_ids);
  out.token_type_ids = std::move(encoding.token_type_ids);
  out.attention_mask = std::move(encoding.attention_mask);
  return out;
}

void append_row(data::Example& list, const data::Example& row) {
  list.input_ids.insert(list.input_ids.end(), row.input_ids.begin(), row.input_ids.end());
  list.token_type_ids.insert(list.token_type_ids.end(), row.token_type_ids.begin(), row.token_type_ids.end());
  list.attention_mask.insert(list.attention_mask.end(), row.attention_mask.begin(), row.attention_mask.end());
  list.choice_lengths.push_back(static_cast<std::int32_t>(row.input_ids.size()));
  list.choice_targets.push_back(list.choice_targets.empty() ? 1.0f : 0.0f);
}

}  // namespace

data::Dataset RerankingTask::in_batch_rows(const data::Table& table, const text::Tokenizer& tokenizer,
                                          const TaskOptions& options) {
  if (label_column(table)) {
    fail_input("{}: MultipleNegativesRankingLoss takes (query, positive, negative, ...) rows without labels; the "
               "file has columns {}",
               table.source, data::join_names(table.columns));
  }
  if (table.columns.size() < 2) {
    fail_input("{}: MultipleNegativesRankingLoss takes (query, positive, negative, ...) rows; the file has columns {}",
               table.source, data::join_names(table.columns));
  }
  tokenizer_ = &tokenizer;
  max_seq_length_ = options.max_seq_length;
  num_negatives_ = options.num_negatives;
  queries_.resize(table.records.size());
  documents_.resize(table.records.size());
  data::Dataset out;
  out.source = table.source;
  out.examples.resize(table.records.size());
  data::for_each_record(table, [&](std::size_t r) {
    const data::Record& record = table.records[r];
    tokenizer.tokenize(read_text(table, record, 0), queries_[r], table.columns[0]);
    documents_[r].resize(table.columns.size() - 1);
    for (std::size_t c = 1; c < table.columns.size(); ++c) {
      tokenizer.tokenize(read_text(table, record, c), documents_[r][c - 1], table.columns[c]);
    }
    // The sampler balances by length: the row's (query, positive) pair stands for it.
    out.examples[r] = pair_example(tokenizer, queries_[r], documents_[r][0], options.max_seq_length);
  });
  return out;
}

std::optional<data::Dataset> RerankingTask::batch_examples(std::span<const std::int64_t> rows,
                                                           std::uint64_t seed) const {
  if (tokenizer_ == nullptr) return std::nullopt;
  if (rows.empty()) return data::Dataset{train_->source, {}};
  const auto b = static_cast<std::int64_t>(rows.size());
  const auto columns = static_cast<std::int64_t>(documents_[static_cast<std::size_t>(rows.front())].size());
  // The batch's documents flattened column by column (candidates_flattened): column c of row j
  // is c * b + j.
  const auto document = [&](std::int64_t flat) -> const std::vector<std::int32_t>& {
    return documents_[static_cast<std::size_t>(rows[static_cast<std::size_t>(flat % b)])]
                     [static_cast<std::size_t>(flat / b)];
  };
  std::mt19937_64 rng(seed);
  data::Dataset out;
  out.source = train_->source;
  out.examples.resize(rows.size());
  for (std::int64_t i = 0; i < b; ++i) {
    const auto row = static_cast<std::size_t>(rows[static_cast<std::size_t>(i)]);
    const std::vector<std::int32_t>& query = queries_[row];
    data::Example& list = out.examples[static_cast<std::size_t>(i)];
    append_row(list, pair_example(*tokenizer_, query, documents_[row][0], max_seq_length_));
    // The other rows' documents: all of them, or num_negatives drawn without replacement.
    std::vector<std::int64_t> others;
    for (std::int64_t flat = 0; flat < b * columns; ++flat) {
      if (flat % b != i) others.push_back(flat);
    }
    if (num_negatives_ < b * columns) {
      const auto draws = std::min<std::size_t>(static_cast<std::size_t>(num_negatives_), others.size());
      for (std::size_t k = 0; k < draws; ++k) {
        std::uniform_int_distribution<std::size_t> pick(k, others.size() - 1);
        std::swap(others[k], others[pick(rng)]);
      }
      others.resize(draws);
    }
    for (const std::int64_t flat : others) append_row(list, pair_example(*tokenizer_, query, document(flat), max_seq_length_));
    for (std::size_t c = 1; c < documents_[row].size(); ++c) {
      append_row(list, pair_example(*tokenizer_, query, documents_[row][c], max_seq_length_));
    }
  }
  return out;
}

}  // namespace shmtrain::task
