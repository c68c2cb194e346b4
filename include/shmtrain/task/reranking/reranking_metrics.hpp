#pragma once
// CrossEncoderRerankingEvaluator's per-query figures (sentence-transformers'
// cross_encoder/evaluation/reranking.py, compute_metrics), over one query's candidates: whether
// each is relevant, and the model's score for each.
//   MRR@k   1 / (rank + 1) of the first relevant candidate among the top k of
//           np.argsort(scores)[::-1]: descending, and among equal scores the later candidate
//           first (numpy's sort of the short lists the evaluator sees is a stable one);
//   NDCG@k  sklearn's ndcg_score(k=k): equal scores share the average gain of their group
//           (ignore_ties=False), over the ideal ordering of the relevances; 0 without a
//           relevant candidate;
//   AP      sklearn's average_precision_score: precision at each distinct score threshold,
//           weighted by the recall it adds (equal scores enter together).
#include <cstdint>
#include <span>

namespace shmtrain::task::reranking {

struct QueryFigures {
  double mrr = 0;
  double ndcg = 0;
  double ap = 0;
};

// REQUIRES: relevant.size() == scores.size(), at_k >= 1.
QueryFigures rerank_figures(std::span<const std::uint8_t> relevant, std::span<const double> scores, std::int64_t at_k);

// scikit-learn's f1_score over class ids, averaged "macro" (each class present in either list
// alike), "micro" (every row alike) and "weighted" (by each class's true count); a class with no
// true positive has F1 0 (zero_division's default).
struct F1Scores {
  double macro = 0, micro = 0, weighted = 0;
};
F1Scores f1_scores(std::span<const std::int32_t> truth, std::span<const std::int32_t> predicted);

}  // namespace shmtrain::task::reranking
