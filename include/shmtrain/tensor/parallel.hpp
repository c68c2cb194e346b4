#pragma once
// Parallel loops over the compute threads (threads.hpp). Blocks are fixed by the caller's
// grain, not by the thread count, and reductions add their block partials in block order,
// so every kernel gives bit-identical results whatever the number of threads.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "shmtrain/tensor/bf16.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

namespace shmtrain::tensor {

// Calls body(begin, end) over [0, n) in blocks of at most `grain` items. TBB halves the range
// until a block fits, so the blocks depend on n and grain alone; they need not start on a
// multiple of grain.
template <typename Body>
void parallel_blocks(std::int64_t n, std::int64_t grain, const Body& body) {
  if (n <= 0) return;
  if (n <= grain) {
    body(std::int64_t{0}, n);
    return;
  }
  tbb::parallel_for(
      tbb::blocked_range<std::int64_t>(0, n, grain),
      [&](const tbb::blocked_range<std::int64_t>& r) { body(r.begin(), r.end()); }, tbb::simple_partitioner());
}

// A reduction over rows into `width` accumulators: body(partial, row_begin, row_end) adds its
// rows into `partial` (width floats, zeroed). Rows go in fixed blocks of kReduceRowBlock whose
// partials are then added into out[0, width) in block order (deterministic).
inline constexpr std::int64_t kReduceRowBlock = 64;

template <typename Body>
void reduce_rows(float* out, std::int64_t rows, std::int64_t width, const Body& body) {
  if (rows <= 0 || width <= 0) return;
  const std::int64_t blocks = (rows + kReduceRowBlock - 1) / kReduceRowBlock;
  std::vector<float> partials(static_cast<std::size_t>(blocks * width), 0.0f);
  parallel_blocks(blocks, 1, [&](std::int64_t b0, std::int64_t b1) {
    for (std::int64_t b = b0; b < b1; ++b) {
      body(partials.data() + b * width, b * kReduceRowBlock, std::min(rows, (b + 1) * kReduceRowBlock));
    }
  });
  for (std::int64_t b = 0; b < blocks; ++b) {
    const float* p = partials.data() + b * width;
    for (std::int64_t c = 0; c < width; ++c) out[c] += p[c];
  }
}

// out[c] += sum_r x[r, c] for x (rows, cols); the bf16 form sums in float.
void accumulate_column_sums(float* out, const float* x, std::int64_t rows, std::int64_t cols);
void accumulate_column_sums(float* out, const bf16* x, std::int64_t rows, std::int64_t cols);

}  // namespace shmtrain::tensor
