#include "shmtrain/tensor/gemm.hpp"

#include <cblas.h>

#include <algorithm>

#include <tbb/parallel_for.h>


namespace shmtrain {
namespace {

CBLAS_TRANSPOSE to_cblas(Trans t) { return t == Trans::kNo ? CblasNoTrans : CblasTrans; }

// Below this many multiply-adds one call on one thread is cheaper than splitting.
constexpr std::int64_t kSerialFlops = 1 << 18;
// Blocks of C are at least this many rows or columns, multiples of the AVX-512 kernels'
// register tiles, so each block still runs OpenBLAS's fast inner kernels.
constexpr std::int64_t kMinBlock = 64;
constexpr std::int64_t kMaxBlocks = 64;

}  // namespace

void gemm_serial(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                 const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                 std::int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {  // op(A) op(B) is empty: C = beta C (BLAS rejects the zero leading dimensions)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
    return;
  }
  cblas_sgemm(CblasRowMajor, to_cblas(trans_a), to_cblas(trans_b), static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
              static_cast<int>(ldc));
}

void gemm(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
          const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
          std::int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (m * n * k < kSerialFlops) {
    gemm_serial(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  // Split the longer side of C into equal blocks; the other side stays whole so every
  // block reads its panel of A (or B) once.
  const bool split_rows = m >= n;
  const std::int64_t extent = split_rows ? m : n;
  const std::int64_t blocks = std::clamp<std::int64_t>(extent / kMinBlock, 1, kMaxBlocks);
  const std::int64_t step = ((extent + blocks - 1) / blocks + 15) / 16 * 16;
  const std::int64_t count = (extent + step - 1) / step;
  tbb::parallel_for(std::int64_t{0}, count, [&](std::int64_t block) {
    const std::int64_t begin = block * step;
    const std::int64_t len = std::min(step, extent - begin);
    if (split_rows) {
      const float* a_block = trans_a == Trans::kNo ? a + begin * lda : a + begin;
      gemm_serial(trans_a, trans_b, len, n, k, alpha, a_block, lda, b, ldb, beta, c + begin * ldc, ldc);
    } else {
      const float* b_block = trans_b == Trans::kNo ? b + begin : b + begin * ldb;
      gemm_serial(trans_a, trans_b, m, len, k, alpha, a, lda, b_block, ldb, beta, c + begin, ldc);
    }
  });
}

}  // namespace shmtrain
