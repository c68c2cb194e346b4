#include "shmtrain/tensor/gemm_bf16.hpp"

#include <fmt/format.h>

#include "gemm_blocks.hpp"
#include "onednn_matmul.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/cpu_features.hpp"

namespace shmtrain::tensor {
namespace {

using onednn::DataType;

// Below this many multiply-adds one call on one thread is cheaper than splitting.
constexpr std::int64_t kSerialFlops = 1 << 18;
// As for gemm(): blocks of 256 rows keep the kernels' rate, 64-row ones lose a tenth of it (bench/bench_gemm).
constexpr std::int64_t kMinBlock = 256;

void require_bf16() {
  if (!bf16_gemm_available()) {
    throw Error("bf16 GEMM called on a CPU without AVX512-BF16 or AMX (cpu has: " + cpu_features().summary() + ")");
  }
}

onednn::MatmulShape shape_of(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k,
                             std::int64_t lda, std::int64_t ldb, std::int64_t ldc, DataType output, float alpha,
                             float beta, bool bias) {
  onednn::MatmulShape s;
  s.trans_a = trans_a;
  s.trans_b = trans_b;
  s.m = m, s.n = n, s.k = k, s.lda = lda, s.ldb = ldb, s.ldc = ldc;
  s.inputs = DataType::kBf16;
  s.output = output;
  s.alpha = alpha;
  s.beta = beta;
  s.bias = bias;
  return s;
}

// op(A) op(B) is empty: C = beta C (+ bias).
template <typename Out>
void empty_product(std::int64_t m, std::int64_t n, float beta, Out* c, std::int64_t ldc, const float* bias) {
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      float v = 0.0f;
      if constexpr (std::is_same_v<Out, float>) v = beta == 0.0f ? 0.0f : beta * c[i * ldc + j];
      if (bias != nullptr) v += bias[j];
      if constexpr (std::is_same_v<Out, float>) {
        c[i * ldc + j] = v;
      } else {
        c[i * ldc + j] = to_bf16(v);
      }
    }
  }
}

template <typename Out>
void serial(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const bf16* a,
            std::int64_t lda, const bf16* b, std::int64_t ldb, float beta, Out* c, std::int64_t ldc,
            const float* bias) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    empty_product(m, n, beta, c, ldc, bias);
    return;
  }
  const DataType output = std::is_same_v<Out, float> ? DataType::kF32 : DataType::kBf16;
  onednn::matmul(shape_of(trans_a, trans_b, m, n, k, lda, ldb, ldc, output, alpha, beta, bias != nullptr), a, b, c,
                 bias);
}

template <typename Out>
void blocked(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const bf16* a,
             std::int64_t lda, const bf16* b, std::int64_t ldb, float beta, Out* c, std::int64_t ldc,
             const float* bias) {
  require_bf16();
  if (bias != nullptr && alpha != 1.0f) throw Error("gemm_bf16: a bias needs alpha == 1");
  if (m == 0 || n == 0) return;
  if (m * n * k < kSerialFlops) {
    serial(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias);
    return;
  }
  gemm_blocks::for_each_block(trans_a, trans_b, m, n, lda, ldb, ldc, kMinBlock,
                              [&](std::int64_t bm, std::int64_t bn, std::int64_t a_at, std::int64_t b_at,
                                  std::int64_t c_at) {
                                const float* block_bias = bias != nullptr ? bias + c_at % ldc : nullptr;
                                serial(trans_a, trans_b, bm, bn, k, alpha, a + a_at, lda, b + b_at, ldb, beta,
                                       c + c_at, ldc, block_bias);
                              });
}

}  // namespace

bool bf16_gemm_available() {
  const CpuFeatures& f = cpu_features();
  return f.avx512_core() && (f.avx512_bf16 || (f.amx_tile && f.amx_bf16));
}

std::string gemm_backends_line(bool bf16) {
  std::string line = fmt::format("gemm: fp32 on OpenBLAS for products with a side over 512, on oneDNN {} below (attention, small layers)",
                                 onednn::kernel_name(DataType::kF32));
  if (bf16) line += fmt::format("; bf16 on oneDNN {}", onednn::kernel_name(DataType::kBf16));
  return line;
}

void gemm_bf16(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
               const bf16* a, std::int64_t lda, const bf16* b, std::int64_t ldb, float beta, float* c,
               std::int64_t ldc, const float* bias) {
  blocked(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias);
}

void gemm_bf16(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, const bf16* a,
               std::int64_t lda, const bf16* b, std::int64_t ldb, bf16* c, std::int64_t ldc, const float* bias) {
  blocked(trans_a, trans_b, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc, bias);
}

void gemm_bf16_serial(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                      const bf16* a, std::int64_t lda, const bf16* b, std::int64_t ldb, float beta, float* c,
                      std::int64_t ldc) {
  serial(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, nullptr);
}

void gemm_bf16_serial(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                      const bf16* a, std::int64_t lda, const bf16* b, std::int64_t ldb, bf16* c, std::int64_t ldc) {
  serial(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, 0.0f, c, ldc, nullptr);
}

}  // namespace shmtrain::tensor
