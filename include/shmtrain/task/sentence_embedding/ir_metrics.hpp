#pragma once
// The metrics of sentence-transformers' InformationRetrievalEvaluator
// (evaluation/InformationRetrievalEvaluator.py), over a query × corpus score matrix:
// accuracy@k, precision@k, recall@k, MRR@k, NDCG@k and MAP@k, computed as it computes them,
// ties included: each query keeps its max_k best hits in a heap of (score, corpus id) as
// Python's heapq does (a tie at the heap's bottom goes to the larger corpus id string), pushed
// chunk by chunk of the corpus in corpus order, then sorts them by score, stably, from the
// heap's list order. Queries without a relevant document are not scored (the evaluator drops
// them); k larger than the corpus sees the whole corpus.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace shmtrain::task::sentence_embedding {

struct IrCutoffs {
  std::vector<int> accuracy_at_k = {1, 3, 5, 10};
  std::vector<int> precision_recall_at_k = {1, 3, 5, 10};
  std::vector<int> mrr_at_k = {10};
  std::vector<int> ndcg_at_k = {10};
  std::vector<int> map_at_k = {100};
  int max_k() const;
};

struct Hit {
  double score = 0;
  std::int64_t doc = 0;  // index into the corpus
};

// One query's hits as the evaluator ranks them: `scores` (corpus) against `corpus_ids`,
// pushed `chunk` documents at a time (corpus_chunk_size, 50,000 by default).
std::vector<Hit> ranked_hits(const float* scores, const std::vector<std::string>& corpus_ids, int max_k,
                             std::int64_t chunk = 50000);

// The metrics named as the evaluator names them before its name prefix: "accuracy@1",
// "precision@3", "recall@10", "mrr@10", "ndcg@10", "map@100" (the caller adds the score
// function, "cosine_", and the evaluator's name). `hits[q]` and `relevant[q]` belong to query q;
// every relevant set is non-empty.
std::map<std::string, double> ir_metrics(const std::vector<std::vector<Hit>>& hits,
                                         const std::vector<std::set<std::int64_t>>& relevant,
                                         const IrCutoffs& cutoffs = {});

}  // namespace shmtrain::task::sentence_embedding
