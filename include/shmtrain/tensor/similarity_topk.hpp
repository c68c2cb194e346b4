#pragma once
// Exact top-k retrieval by blocked matrix products: each query's k highest dot products with the
// corpus rows, with every core, without ever holding the (queries x corpus) score matrix. The
// queries go in blocks, one task each (its rows' running top-k lists its own); inside a task the
// corpus goes in blocks of kCorpusBlock rows, one single-threaded product a block, then a pass
// that keeps a score only if it beats the row's current k-th. Scores are the products' floats.
#include <cstdint>
#include <vector>

namespace shmtrain::tensor {

struct TopK {
  std::int64_t k = 0;                // per query (min(k asked, corpus rows))
  std::vector<float> scores;         // (queries, k), best first
  std::vector<std::int64_t> indices;  // (queries, k): corpus rows
};

inline constexpr std::int64_t kCorpusBlock = 2048;

// The queries a task takes: enough blocks for every compute thread to have a few, at least 64
// rows a product so that each runs at the library's rate, at most 512 so that a block's scores
// stay in cache.
std::int64_t similarity_query_block(std::int64_t nq);

// queries (nq, dim) and corpus (nc, dim), row-major. Equal scores keep the corpus order (the
// lower row first), so the lists are a function of the scores alone.
TopK similarity_topk(const float* queries, std::int64_t nq, const float* corpus, std::int64_t nc, std::int64_t dim,
                     std::int64_t k);

}  // namespace shmtrain::tensor
