#include "shmtrain/tensor/similarity_topk.hpp"

#include <algorithm>

#include "shmtrain/tensor/gemm.hpp"
#include "shmtrain/tensor/parallel.hpp"
#include "shmtrain/tensor/threads.hpp"

namespace shmtrain::tensor {
namespace {

// Inserts (score, index) into a best-first list of `size` entries (capacity k) when it beats the
// last; an equal score goes after the entries it equals (they came from lower corpus rows).
void insert(float* scores, std::int64_t* indices, std::int64_t& size, std::int64_t k, float score, std::int64_t index) {
  std::int64_t at = size < k ? size : k - 1;
  while (at > 0 && scores[at - 1] < score) {
    if (at < k) {
      scores[at] = scores[at - 1];
      indices[at] = indices[at - 1];
    }
    --at;
  }
  scores[at] = score;
  indices[at] = index;
  if (size < k) ++size;
}

}  // namespace

std::int64_t similarity_query_block(std::int64_t nq) {
  const std::int64_t threads = std::max<std::int64_t>(1, compute_threads());
  return std::clamp<std::int64_t>((nq + 4 * threads - 1) / (4 * threads), 64, 512);
}

TopK similarity_topk(const float* queries, std::int64_t nq, const float* corpus, std::int64_t nc, std::int64_t dim,
                     std::int64_t k) {
  TopK out;
  out.k = std::max<std::int64_t>(0, std::min(k, nc));
  out.scores.assign(static_cast<std::size_t>(nq * out.k), 0.0f);
  out.indices.assign(static_cast<std::size_t>(nq * out.k), 0);
  if (nq == 0 || out.k == 0) return out;
  parallel_blocks(nq, similarity_query_block(nq), [&](std::int64_t q0, std::int64_t q1) {
    const std::int64_t rows = q1 - q0;
    std::vector<float> block(static_cast<std::size_t>(rows * kCorpusBlock));
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(rows), 0);
    for (std::int64_t c0 = 0; c0 < nc; c0 += kCorpusBlock) {
      const std::int64_t cols = std::min(kCorpusBlock, nc - c0);
      gemm_serial(Trans::kNo, Trans::kYes, rows, cols, dim, 1.0f, queries + q0 * dim, dim, corpus + c0 * dim, dim,
                  0.0f, block.data(), cols);
      for (std::int64_t r = 0; r < rows; ++r) {
        float* best = out.scores.data() + (q0 + r) * out.k;
        std::int64_t* where = out.indices.data() + (q0 + r) * out.k;
        std::int64_t& size = sizes[static_cast<std::size_t>(r)];
        const float* row = block.data() + r * cols;
        for (std::int64_t c = 0; c < cols; ++c) {
          // Past the first k, only a score above the current k-th enters.
          if (size == out.k && !(row[c] > best[out.k - 1])) continue;
          insert(best, where, size, out.k, row[c], c0 + c);
        }
      }
    }
  });
  return out;
}

}  // namespace shmtrain::tensor
