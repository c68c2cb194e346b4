#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain::tensor {

void accumulate_column_sums(float* out, const float* x, std::int64_t rows, std::int64_t cols) {
  reduce_rows(out, rows, cols, [&](float* partial, std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const float* row = x + r * cols;
      for (std::int64_t c = 0; c < cols; ++c) partial[c] += row[c];
    }
  });
}

void accumulate_column_sums(float* out, const bf16* x, std::int64_t rows, std::int64_t cols) {
  reduce_rows(out, rows, cols, [&](float* partial, std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const bf16* row = x + r * cols;
      for (std::int64_t c = 0; c < cols; ++c) partial[c] += to_float(row[c]);
    }
  });
}

}  // namespace shmtrain::tensor
