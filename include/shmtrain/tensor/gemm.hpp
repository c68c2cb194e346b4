#pragma once
// Row-major single-precision GEMM: C = alpha * op(A) * op(B) + beta * C, with op(X) = X or X^T.
// The product is split into blocks of C over the compute threads (threads.hpp); each block is
// one single-threaded OpenBLAS call. The block grid depends only on the shape, never on the
// thread count, so results are bit-identical whatever the number of threads.
#include <cstdint>

namespace shmtrain::tensor {

enum class Trans { kNo, kYes };

// A: op(A) is (M, K) with leading dimension lda; B: op(B) is (K, N), ldb; C: (M, N), ldc.
void gemm(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
          const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
          std::int64_t ldc);

// The same on the calling thread only: for callers that are already inside a parallel loop
// (the attention kernels run one small GEMM per (batch, head) task).
void gemm_serial(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                 const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c,
                 std::int64_t ldc);

// Which library runs a product on one thread. kAuto is what gemm() and gemm_serial() use:
// oneDNN when both sides of C and the inner dimension are at most 512 (attention products,
// small models), OpenBLAS above; the choice is a function of the shape only, so runs repeat
// bit for bit. bench/bench_gemm measures the two on the BERT shapes.
enum class GemmBackend { kAuto, kOpenBlas, kOneDnn };
GemmBackend gemm_backend_for(std::int64_t m, std::int64_t n, std::int64_t k);

// gemm_serial on a given backend (for the benchmark that justifies kAuto's rule).
void gemm_serial_on(GemmBackend backend, Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n,
                    std::int64_t k, float alpha, const float* a, std::int64_t lda, const float* b, std::int64_t ldb,
                    float beta, float* c, std::int64_t ldc);

}  // namespace shmtrain::tensor
