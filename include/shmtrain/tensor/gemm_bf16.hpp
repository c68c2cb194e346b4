#pragma once
// Row-major GEMMs with bfloat16 inputs accumulated in float32 (the --bf16 path), through
// oneDNN's matmul (AMX where the CPU has it, AVX512-BF16 otherwise), or where it has neither
// (CpuFeatures::bf16_gemm(), cpu_features.hpp) as the fp32 GEMM of the inputs widened to float:
// correct, and slower than fp32 itself, so --bf16 is refused there. Split over the compute
// threads as gemm() splits its work: the block grid depends only on the shape, so results are
// bit-identical whatever the number of threads.
#include <cstdint>
#include <string>

#include "shmtrain/tensor/bf16.hpp"
#include "shmtrain/tensor/gemm.hpp"

namespace shmtrain::tensor {

// The oneDNN kernels the two precisions run, for the start-up line: "fp32 linear layers on
// OpenBLAS, attention on oneDNN brg:avx512_core; bf16 on oneDNN brg:avx512_core_bf16".
std::string gemm_backends_line(bool bf16);

// C (M, N) = alpha op(A) op(B) [+ bias (N) added to every row] + beta C.
// REQUIRES: alpha == 1 when bias is given.
void gemm_bf16(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
               const bf16* a, std::int64_t lda, const bf16* b, std::int64_t ldb, float beta, float* c,
               std::int64_t ldc, const float* bias = nullptr);

// C (M, N) = op(A) op(B) [+ bias], rounded once to bf16.
void gemm_bf16(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, const bf16* a,
               std::int64_t lda, const bf16* b, std::int64_t ldb, bf16* c, std::int64_t ldc,
               const float* bias = nullptr);

// On the calling thread only (the attention kernels run one small GEMM per (batch, head) task).
void gemm_bf16_serial(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                      const bf16* a, std::int64_t lda, const bf16* b, std::int64_t ldb, float beta, float* c,
                      std::int64_t ldc);
void gemm_bf16_serial(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                      const bf16* a, std::int64_t lda, const bf16* b, std::int64_t ldb, bf16* c, std::int64_t ldc);

}  // namespace shmtrain::tensor
