#include "shmtrain/tensor/gemm_bf16.hpp"

#include <fmt/format.h>

#include <type_traits>
#include <vector>

#include "gemm_blocks.hpp"
#include "onednn_matmul.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/cpu_features.hpp"

namespace shmtrain::tensor {
namespace {

using onednn::DataType;


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

// The stored (rows, cols) matrix read at leading dimension ld, widened into `out` packed
// (leading dimension cols).
void widen(std::vector<float>& out, const bf16* in, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  out.resize(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < cols; ++c) out[static_cast<std::size_t>(r * cols + c)] = to_float(in[r * ld + c]);
  }
}

// Bf16Gemm::kFallback: bf16 values are exact in float, so the fp32 GEMM of the widened inputs
// is the same product, accumulated in float as oneDNN's; only the order of the sums differs.
template <typename Out>
void widened(Trans trans_a, Trans trans_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const bf16* a,
             std::int64_t lda, const bf16* b, std::int64_t ldb, float beta, Out* c, std::int64_t ldc,
             const float* bias) {
  thread_local std::vector<float> wide_a, wide_b, wide_c;
  const std::int64_t a_cols = trans_a == Trans::kNo ? k : m;
  const std::int64_t b_cols = trans_b == Trans::kNo ? n : k;
  widen(wide_a, a, trans_a == Trans::kNo ? m : k, a_cols, lda);
  widen(wide_b, b, trans_b == Trans::kNo ? k : n, b_cols, ldb);
  float* out = nullptr;
  std::int64_t ldo = ldc;
  if constexpr (std::is_same_v<Out, float>) {
    out = c;
  } else {
    wide_c.assign(static_cast<std::size_t>(m * n), 0.0f);
    out = wide_c.data();
    ldo = n;
  }
  gemm_serial(trans_a, trans_b, m, n, k, alpha, wide_a.data(), a_cols, wide_b.data(), b_cols, beta, out, ldo);
  if (std::is_same_v<Out, float> && bias == nullptr) return;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t j = 0; j < n; ++j) {
      const float v = out[i * ldo + j] + (bias != nullptr ? bias[j] : 0.0f);
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
  if (cpu_features().bf16_gemm() == Bf16Gemm::kFallback) {
    widened(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias);
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
  if (bias != nullptr && alpha != 1.0f) throw Error("gemm_bf16: a bias needs alpha == 1");
  if (m == 0 || n == 0) return;
  if (m * n * k < gemm_blocks::kSerialFlops) {
    serial(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, bias);
    return;
  }
  gemm_blocks::for_each_block(trans_a, trans_b, m, n, lda, ldb, ldc, gemm_blocks::kMinBlock,
                              [&](std::int64_t bm, std::int64_t bn, std::int64_t a_at, std::int64_t b_at,
                                  std::int64_t c_at) {
                                const float* block_bias = bias != nullptr ? bias + c_at % ldc : nullptr;
                                serial(trans_a, trans_b, bm, bn, k, alpha, a + a_at, lda, b + b_at, ldb, beta,
                                       c + c_at, ldc, block_bias);
                              });
}

}  // namespace

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
