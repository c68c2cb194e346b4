#pragma once
// How a GEMM is split over the compute threads (private to tensor/): the longer side of C is
// cut into equal blocks, the other side stays whole so that each block reads its panel of A
// (or B) once. The grid depends only on the shape, never on the thread count, so the sums of
// every element of C are formed in the same order whatever the number of threads.
#include <algorithm>
#include <cstdint>

#include <tbb/parallel_for.h>

#include "shmtrain/tensor/gemm.hpp"

namespace shmtrain::tensor::gemm_blocks {

// Below this many multiply-adds one call on one thread is cheaper than splitting.
constexpr std::int64_t kSerialFlops = 1 << 18;
// Blocks of C are at least this many rows or columns: each block is one kernel call that packs
// its share of A and all of B (or the reverse) again, so small blocks spend their time packing:
// 64-row blocks of a BERT-base product lose 20-45% of OpenBLAS's fp32 rate and a tenth of the
// bf16 kernels', 256-row ones a few percent (bench/bench_gemm). 4096 tokens still give 16 blocks
// to spread over the threads.
constexpr std::int64_t kMinBlock = 256;

// body(m, n, a_offset, b_offset, c_offset): one block, as element offsets into A, B and C.
// min_block: the smallest block side (a multiple of the kernels' register tiles).
template <typename Body>
void for_each_block(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t lda, std::int64_t ldb,
                    std::int64_t ldc, std::int64_t min_block, const Body& body) {
  constexpr std::int64_t kMaxBlocks = 64;
  const bool split_rows = m >= n;
  const std::int64_t extent = split_rows ? m : n;
  const std::int64_t blocks = std::clamp<std::int64_t>(extent / min_block, 1, kMaxBlocks);
  const std::int64_t step = ((extent + blocks - 1) / blocks + 15) / 16 * 16;
  const std::int64_t count = (extent + step - 1) / step;
  tbb::parallel_for(std::int64_t{0}, count, [&](std::int64_t block) {
    const std::int64_t begin = block * step;
    const std::int64_t len = std::min(step, extent - begin);
    if (split_rows) {
      body(len, n, trans_a == Trans::kNo ? begin * lda : begin, std::int64_t{0}, begin * ldc);
    } else {
      body(m, len, std::int64_t{0}, trans_b == Trans::kNo ? begin : begin * ldb, begin);
    }
  });
}

}  // namespace shmtrain::tensor::gemm_blocks
