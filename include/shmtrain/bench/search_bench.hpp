#pragma once
// `shmtrain bench search`: mine-negatives' exact top-k search (tensor/similarity_topk) against the
// machine's GEMM rate, measured in the same run on random unit vectors: the same blocked products
// without the selection, and one large multi-threaded product; the best of `runs` passes each.
#include <cstdint>

namespace shmtrain::bench {

struct SearchBenchOptions {
  std::int64_t queries = 10000;
  std::int64_t corpus = 100000;
  std::int64_t dim = 768;
  std::int64_t k = 13;  // mine_hard_negatives' default range_max + 1 positive (3 + 0 + 1) and room
  int runs = 3;
};

// Prints the table; returns the search's share of the products' rate.
double run_search_bench(const SearchBenchOptions& options);

}  // namespace shmtrain::bench
