#include "position_terms.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include <tbb/enumerable_thread_specific.h>

#include "shmtrain/tensor/gemm.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"

namespace shmtrain::tensor {

float PositionTables::scale(std::int64_t head_dim) const {
  // transformers: sqrt(tensor(head_dim, float) * scale_factor), divided by in float32.
  return 1.0f / std::sqrt(static_cast<float>(head_dim) * static_cast<float>(1 + terms()));
}

namespace detail {
namespace {

// A thread's buffers, grown to the longest sequence seen.
struct TermScratch {
  std::vector<float> c2p, p2c, acc;            // (L, rows) products and their gradients; (L, d)
  std::vector<bf16> c2p16, p2c16;              // bf16 copies of the gradients, as product inputs
  std::vector<std::int32_t> c2p_col, p2c_col;  // by r + L - 1: the pair's column in c2p / p2c
};

TermScratch& term_scratch() {
  static tbb::enumerable_thread_specific<TermScratch> scratch;
  return scratch.local();
}

template <typename V>
V* grown_to(std::vector<V>& v, std::int64_t n) {
  if (static_cast<std::int64_t>(v.size()) < n) v.resize(static_cast<std::size_t>(n));
  return v.data();
}

// The table rows a sequence of L tokens reads, [first, first + rows): the rows of r = -(L-1)
// and L - 1, every row between them reachable (the rows grow with r).
struct TableWindow {
  std::int64_t first = 0, rows = 0;
};

TableWindow c2p_window(const RelativePositions& p, std::int64_t length) {
  const std::int64_t first = p.c2p_row(-(length - 1));
  return {first, p.c2p_row(length - 1) - first + 1};
}

TableWindow p2c_window(const RelativePositions& p, std::int64_t length) {
  const std::int64_t first = p.p2c_row(-(length - 1));
  return {first, p.p2c_row(length - 1) - first + 1};
}

// Each distance's column in the window, by r + L - 1.
const std::int32_t* pair_columns(std::vector<std::int32_t>& out, std::int64_t length, TableWindow w,
                                 std::int64_t (RelativePositions::*row)(std::int64_t) const,
                                 const RelativePositions& p) {
  std::int32_t* col = grown_to(out, 2 * length - 1);
  for (std::int64_t r = -(length - 1); r < length; ++r) {
    col[r + length - 1] = static_cast<std::int32_t>((p.*row)(r)-w.first);
  }
  return col;
}

const float* table_in(const float* f32, const bf16*, const float*) { return f32; }
const bf16* table_in(const float*, const bf16* b16, const bf16*) { return b16; }

// C (+)= alpha op(A) op(B), float C, inputs float or bf16.
void accumulate_product(Trans ta, Trans tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                        const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta,
                        float* c, std::int64_t ldc) {
  gemm_serial(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
void accumulate_product(Trans ta, Trans tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
                        const bf16* a, std::int64_t lda, const bf16* b, std::int64_t ldb, float beta,
                        float* c, std::int64_t ldc) {
  gemm_bf16_serial(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// A float gradient as a product input: itself, or rounded into `scratch`.
const float* as_product_input(const float* g, std::int64_t, std::vector<bf16>&, const float*) { return g; }
const bf16* as_product_input(const float* g, std::int64_t n, std::vector<bf16>& scratch, const bf16*) {
  bf16* out = grown_to(scratch, n);
  convert_to_bf16_serial(out, g, n);
  return out;
}

// Rows of (L, d) floats into a (row stride ld) block of T.
void store_gradient_rows(float* dst, std::int64_t ld, const float* src, std::int64_t rows, std::int64_t d) {
  for (std::int64_t i = 0; i < rows; ++i) std::copy_n(src + i * d, d, dst + i * ld);
}
void store_gradient_rows(bf16* dst, std::int64_t ld, const float* src, std::int64_t rows, std::int64_t d) {
  for (std::int64_t i = 0; i < rows; ++i) convert_to_bf16_serial(dst + i * ld, src + i * d, d);
}

}  // namespace

template <typename T>
void add_position_scores(float* scores, const T* q, const T* k, std::int64_t ld, const TermMatrix& m,
                         const PositionTables& tables, float scale) {
  const RelativePositions& p = tables.positions;
  const std::int64_t L = m.length;
  const std::int64_t d = m.head_dim;
  const T* key = table_in(tables.key, tables.key16, q);
  const T* query = table_in(tables.query, tables.query16, q);
  TermScratch& s = term_scratch();
  if (key != nullptr) {  // c2p[i, c] = q_i . Kr[first + c]
    const TableWindow w = c2p_window(p, L);
    float* c2p = grown_to(s.c2p, L * w.rows);
    accumulate_product(Trans::kNo, Trans::kYes, L, w.rows, d, 1.0f, q, ld,
                       key + w.first * m.hidden + m.head * d, m.hidden, 0.0f, c2p, w.rows);
    const std::int32_t* col = pair_columns(s.c2p_col, L, w, &RelativePositions::c2p_row, p);
    for (std::int64_t i = 0; i < L; ++i) {
      float* row = scores + i * L;
      const float* c = c2p + i * w.rows;
      const std::int32_t* by_j = col + i + L - 1;  // r = i - j: by_j[-j]
      for (std::int64_t j = 0; j < L; ++j) row[j] += scale * c[by_j[-j]];
    }
  }
  if (query != nullptr) {  // p2c[j, c] = k_j . Qr[first + c]
    const TableWindow w = p2c_window(p, L);
    float* p2c = grown_to(s.p2c, L * w.rows);
    accumulate_product(Trans::kNo, Trans::kYes, L, w.rows, d, 1.0f, k, ld,
                       query + w.first * m.hidden + m.head * d, m.hidden, 0.0f, p2c, w.rows);
    const std::int32_t* col = pair_columns(s.p2c_col, L, w, &RelativePositions::p2c_row, p);
    for (std::int64_t i = 0; i < L; ++i) {
      float* row = scores + i * L;
      const std::int32_t* by_j = col + i + L - 1;
      for (std::int64_t j = 0; j < L; ++j) row[j] += scale * p2c[j * w.rows + by_j[-j]];
    }
  }
}

template <typename T>
void position_input_gradients(T* dq, T* dk, const float* ds, const T* ds_t, const T* q, const T* k,
                              std::int64_t ld, const TermMatrix& m, const PositionTables& tables,
                              float scale) {
  const RelativePositions& p = tables.positions;
  const std::int64_t L = m.length;
  const std::int64_t d = m.head_dim;
  const std::int64_t H = m.hidden;
  const T* key = table_in(tables.key, tables.key16, q);
  const T* query = table_in(tables.query, tables.query16, q);
  TermScratch& s = term_scratch();
  float* acc = grown_to(s.acc, L * d);

  // dQ = scale (dS K + dC2P Kr), dC2P[i, c] = the sum of dS[i, j] over the j reading row c.
  accumulate_product(Trans::kNo, Trans::kNo, L, d, L, scale, ds_t, L, k, ld, 0.0f, acc, d);
  if (key != nullptr) {
    const TableWindow w = c2p_window(p, L);
    float* dc = grown_to(s.c2p, L * w.rows);
    std::fill_n(dc, L * w.rows, 0.0f);
    const std::int32_t* col = pair_columns(s.c2p_col, L, w, &RelativePositions::c2p_row, p);
    for (std::int64_t i = 0; i < L; ++i) {
      const float* row = ds + i * L;
      float* c = dc + i * w.rows;
      const std::int32_t* by_j = col + i + L - 1;
      for (std::int64_t j = 0; j < L; ++j) c[by_j[-j]] += row[j];
    }
    const T* dc_t = as_product_input(dc, L * w.rows, s.c2p16, q);
    const T* rows = key + w.first * H + m.head * d;
    accumulate_product(Trans::kNo, Trans::kNo, L, d, w.rows, scale, dc_t, w.rows, rows, H, 1.0f, acc, d);
    // dKr[first + c] += scale dC2P[:, c]^T Q
    accumulate_product(Trans::kYes, Trans::kNo, w.rows, d, L, scale, dc_t, w.rows, q, ld, 1.0f,
                       tables.d_key + w.first * H + m.head * d, H);
  }
  store_gradient_rows(dq, ld, acc, L, d);

  // dK = scale (dS^T Q + dP2C Qr), dP2C[j, c] = the sum of dS[i, j] over the i reading row c.
  accumulate_product(Trans::kYes, Trans::kNo, L, d, L, scale, ds_t, L, q, ld, 0.0f, acc, d);
  if (query != nullptr) {
    const TableWindow w = p2c_window(p, L);
    float* dp = grown_to(s.p2c, L * w.rows);
    std::fill_n(dp, L * w.rows, 0.0f);
    const std::int32_t* col = pair_columns(s.p2c_col, L, w, &RelativePositions::p2c_row, p);
    for (std::int64_t i = 0; i < L; ++i) {
      const float* row = ds + i * L;
      const std::int32_t* by_j = col + i + L - 1;
      for (std::int64_t j = 0; j < L; ++j) dp[j * w.rows + by_j[-j]] += row[j];
    }
    const T* dp_t = as_product_input(dp, L * w.rows, s.p2c16, q);
    const T* rows = query + w.first * H + m.head * d;
    accumulate_product(Trans::kNo, Trans::kNo, L, d, w.rows, scale, dp_t, w.rows, rows, H, 1.0f, acc, d);
    accumulate_product(Trans::kYes, Trans::kNo, w.rows, d, L, scale, dp_t, w.rows, k, ld, 1.0f,
                       tables.d_query + w.first * H + m.head * d, H);
  }
  store_gradient_rows(dk, ld, acc, L, d);
}

template void add_position_scores<float>(float*, const float*, const float*, std::int64_t, const TermMatrix&,
                                         const PositionTables&, float);
template void add_position_scores<bf16>(float*, const bf16*, const bf16*, std::int64_t, const TermMatrix&,
                                        const PositionTables&, float);
template void position_input_gradients<float>(float*, float*, const float*, const float*, const float*,
                                              const float*, std::int64_t, const TermMatrix&,
                                              const PositionTables&, float);
template void position_input_gradients<bf16>(bf16*, bf16*, const float*, const bf16*, const bf16*,
                                             const bf16*, std::int64_t, const TermMatrix&,
                                             const PositionTables&, float);

}  // namespace detail
}  // namespace shmtrain::tensor
