#pragma once
// `shmtrain mine-negatives`: hard negatives for (anchor, positive) pairs, as sentence-transformers'
// util.mine_hard_negatives finds them (5.x, util/hard_negatives.py), its steps in its order:
//  1. the corpus is the --corpus texts followed by the dataset's positives, duplicates removed
//     (first occurrence kept); the queries are the dataset's anchors, duplicates removed (a
//     query's rows are its positives);
//  2. both embedded with the model (the encode path), the queries after the query prompt and the
//     corpus after the document prompt, then L2-normalised; the score is their dot product
//     (cosine);
//  3. each query's top range_max + max_positives corpus rows (exact: blocked products,
//     tensor/similarity_topk; equal scores keep the corpus order);
//  4. the query's positives among them set to -inf (unless include_positives); then, against
//     the query's smallest positive score p, candidates with score + absolute_margin > p, with
//     score > p (1 - relative_margin), above max_score and below min_score set to -inf;
//  5. the top range_max of the rest (equal scores keep step 3's order), the first range_min
//     dropped, then num_negatives of them: the first ("top") or drawn uniformly without
//     replacement from the finite ones ("random", seeded by --seed) and put back best first;
//  6. written per (query, positive) row in the queries' order: triplets (a row per negative),
//     n-tuples (rows with every negative found), n-tuple-scores, labeled pairs or labeled lists.
// Where the source's bookkeeping slips (its margin loop advances by the previous query's count
// of positives; its labeled-pair rows index the per-positive matrix by query), this follows what
// the steps above say. Rescoring with a cross-encoder is not built.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "shmtrain/train/embed.hpp"

namespace shmtrain::train {

struct NegativeSelection {
  std::int64_t range_min = 0;
  std::int64_t range_max = 0;  // resolved (see default_range_max)
  std::optional<double> max_score, min_score, absolute_margin, relative_margin;
  std::int64_t num_negatives = 3;
  bool random = false;  // sampling_strategy "random" (else "top")
  bool include_positives = false;
  std::uint64_t seed = 42;
};

// mine_hard_negatives' range_max when none is given: range_min + num_negatives (x 10 with a
// margin or max_score) + the most positives any query has.
std::int64_t default_range_max(const NegativeSelection& selection, std::int64_t max_positives);

// Steps 3-5 over unit-length embeddings: query q's slots (width each) as corpus rows and
// scores, -inf where no negative was found; positives[q] are query q's positive corpus rows.
struct MinedNegatives {
  std::int64_t width = 0;
  std::vector<std::int64_t> indices;  // (queries, width)
  std::vector<float> scores;          // (queries, width), best first; -inf: none found
  std::vector<float> positive_scores;  // per (query, positive) row, the queries' order
  // Candidates each filter set to -inf (absolute_margin, relative_margin, max_score, min_score).
  std::int64_t skipped_absolute = 0, skipped_relative = 0, skipped_max = 0, skipped_min = 0;
  std::int64_t candidates = 0;  // the step-3 candidates in all
};
MinedNegatives select_negatives(const float* queries, std::int64_t n_queries, const float* corpus,
                                std::int64_t n_corpus, std::int64_t dim,
                                const std::vector<std::vector<std::int64_t>>& positives,
                                const NegativeSelection& selection);

struct MineOptions {
  EmbeddingModelOptions model;
  std::filesystem::path dataset;  // .jsonl/.json, .csv, .parquet
  std::string anchor_column;      // "": the first column
  std::string positive_column;    // "": the second
  std::filesystem::path corpus;   // "": the positives alone
  std::string corpus_column = "text";
  std::filesystem::path output;   // JSON Lines
  std::string output_format = "triplet";  // triplet, n-tuple, n-tuple-scores, labeled-pair, labeled-list
  std::string sampling_strategy = "top";
  std::optional<std::int64_t> range_max;
  std::optional<std::string> query_prompt, corpus_prompt;  // default: the folder's prompts
  std::filesystem::path cache_folder;  // embeddings kept and reused (query_/corpus_embeddings_<key>.npy)
  std::int64_t batch_size = 32;
  NegativeSelection selection;
};

// Reads, mines and writes; prints sentence-transformers' summary (score statistics, skipped
// candidates, samples short of negatives). Returns the rows written.
std::int64_t mine_negatives_file(const MineOptions& options);

}  // namespace shmtrain::train
