#pragma once
// A cross-encoder's scores (CrossEncoder.predict / rank): a one-score
// <Family>ForSequenceClassification folder (what --task_name reranking writes, or a Hub reranker)
// scores each (query, document) pair, the pair tokenized as the family's tokenizer pairs two
// texts (truncation longest_first), batches packed by length, no dropout; the score is the
// logit through the folder's activation: config.json's sentence_transformers.activation_fn,
// Sigmoid when it names none (CrossEncoder's default for one label), Identity for raw logits.
// Used by `shmtrain rerank`.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shmtrain::train {

struct RerankOptions {
  std::filesystem::path model;
  std::filesystem::path queries;     // .txt (a query a line), or .jsonl/.csv/.parquet with a `query_column`
  std::string query_column = "query";
  std::filesystem::path candidates;  // JSON Lines, line i query i's: {"documents": [...]}
  std::filesystem::path output;      // JSON Lines: {"query", "ranking": [{"corpus_id", "score", "text"}, ...]}
  std::optional<std::int64_t> max_seq_length;  // default: the model's positions, at most 512
  std::int64_t batch_size = 64;
};

// Writes `output`: per query, its candidates ordered by score, highest first (equal scores keep
// their order, as CrossEncoder.rank's sort does); corpus_id is the candidate's place in its list.
// Returns the pairs scored. InputError naming the file and line for bad input; nothing is
// written then.
std::int64_t rerank_files(const RerankOptions& options);

}  // namespace shmtrain::train
