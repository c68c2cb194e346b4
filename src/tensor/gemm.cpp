#include "shmtrain/tensor/gemm.hpp"

#include <cblas.h>

#include "gemm_blocks.hpp"
#include "onednn_matmul.hpp"

namespace shmtrain::tensor {
namespace {

CBLAS_TRANSPOSE to_cblas(Trans t) { return t == Trans::kNo ? CblasNoTrans : CblasTrans; }

// Products with both sides of C and the inner dimension at most this long (the attention
// products up to seq 512, small models' blocks) run on oneDNN, whose brgemm kernels need no
// packing copies and measure 1.3-1.9x OpenBLAS there (bench/bench_gemm); larger ones on
// OpenBLAS, as fast as oneDNN or faster on the BERT-base linear layers' backward.
constexpr std::int64_t kOneDnnSide = 512;

bool prefer_onednn(std::int64_t m, std::int64_t n, std::int64_t k) {
  return m <= kOneDnnSide && n <= kOneDnnSide && k <= kOneDnnSide;
}

}  // namespace

GemmBackend gemm_backend_for(std::int64_t m, std::int64_t n, std::int64_t k) {
  return prefer_onednn(m, n, k) ? GemmBackend::kOneDnn : GemmBackend::kOpenBlas;
}

void gemm_serial_on(GemmBackend backend, Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n,
                    std::int64_t k, float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                    float beta, float* c, std::int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {  // op(A) op(B) is empty: C = beta C (BLAS rejects the zero leading dimensions)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) c[i * ldc + j] = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
    return;
  }
  if (backend == GemmBackend::kAuto) backend = gemm_backend_for(m, n, k);
  if (backend == GemmBackend::kOneDnn) {
    onednn::MatmulShape s;
    s.trans_a = trans_a;
    s.trans_b = trans_b;
    s.m = m, s.n = n, s.k = k, s.lda = lda, s.ldb = ldb, s.ldc = ldc;
    s.alpha = alpha;
    s.beta = beta;
    onednn::matmul(s, a, b, c, nullptr);
    return;
  }
  cblas_sgemm(CblasRowMajor, to_cblas(trans_a), to_cblas(trans_b), static_cast<int>(m), static_cast<int>(n),
              static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
              static_cast<int>(ldc));
}

void gemm_serial(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                 const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                 std::int64_t ldc) {
  gemm_serial_on(GemmBackend::kAuto, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void gemm(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
          const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
          std::int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (m * n * k < gemm_blocks::kSerialFlops) {
    gemm_serial(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    return;
  }
  gemm_blocks::for_each_block(trans_a, trans_b, m, n, lda, ldb, ldc, gemm_blocks::kMinBlock,
                              [&](std::int64_t bm, std::int64_t bn, std::int64_t a_at, std::int64_t b_at,
                                  std::int64_t c_at) {
                                gemm_serial(trans_a, trans_b, bm, bn, k, alpha, a + a_at, lda, b + b_at, ldb, beta,
                                            c + c_at, ldc);
                              });
}

}  // namespace shmtrain::tensor
