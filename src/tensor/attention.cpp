#include "shmtrain/tensor/attention.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include <tbb/enumerable_thread_specific.h>

#include "position_terms.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/disentangled_attention.hpp"
#include "shmtrain/tensor/gemm.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"
#include "shmtrain/tensor/parallel.hpp"
#include "shmtrain/tensor/softmax.hpp"

namespace shmtrain::tensor {
namespace {

// Per-thread (T, T) scratch matrices, reused across calls.
using Scratch = tbb::enumerable_thread_specific<std::vector<float>>;

float* scratch_of(Scratch& scratch, std::int64_t floats) {
  std::vector<float>& s = scratch.local();
  if (static_cast<std::int64_t>(s.size()) < floats) s.resize(static_cast<std::size_t>(floats));
  return s.data();
}

Scratch& forward_scratch() {
  static Scratch scratch;
  return scratch;
}

Scratch& backward_scratch() {
  static Scratch scratch;
  return scratch;
}

using ScratchBf16 = tbb::enumerable_thread_specific<std::vector<bf16>>;

bf16* scratch_of(ScratchBf16& scratch, std::int64_t count) {
  std::vector<bf16>& s = scratch.local();
  if (static_cast<std::int64_t>(s.size()) < count) s.resize(static_cast<std::size_t>(count));
  return s.data();
}

ScratchBf16& bf16_scratch() {
  static ScratchBf16 scratch;
  return scratch;
}

void check_mask(const AttentionDropout& dropout, const std::uint16_t* mask) {
  if (dropout.p > 0.0f && mask == nullptr)
    throw Error("attention: dropout is on, but no mask storage was given");
}

// Where one (sequence, head) matrix lies: the sequence's first token and length, its Q column
// block in qkv (K and V follow one and two hidden widths later), its block of the (N, H)
// output, its (L, L) probabilities in the cache and its dropout mask's first word.
struct Matrix {
  std::int64_t sequence, head, length, qkv, out, probs, mask_word;
};

// Every (sequence, head) matrix of the batch, sequence-major, each placed after the last.
std::vector<Matrix> matrices_of(const AttentionShape& s) {
  std::vector<Matrix> all;
  all.reserve(static_cast<std::size_t>(s.batch * s.heads));
  std::int64_t probs = 0;
  std::int64_t mask_word = 0;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const std::int64_t first = s.offsets != nullptr ? s.offsets[b] : b * s.seq;
    const std::int64_t length = s.offsets != nullptr ? s.offsets[b + 1] - s.offsets[b] : s.seq;
    for (std::int64_t h = 0; h < s.heads; ++h) {
      all.push_back({b, h, length, first * 3 * s.hidden() + h * s.head_dim,
                     first * s.hidden() + h * s.head_dim, probs, mask_word});
      probs += length * length;
      mask_word += dropout_mask_words(length * length);
    }
  }
  return all;
}

// Draws the dropout mask of matrix m into its place in masks; null when dropout is off.
const std::uint16_t* draw_matrix_mask(const Matrix& m, const AttentionDropout& dropout,
                                      std::uint16_t* masks) {
  if (dropout.p == 0.0f) return nullptr;
  std::uint16_t* mask = masks + m.mask_word;
  const std::int64_t n = m.length * m.length;
  if (dropout.row_keys != nullptr) {
    dropout_mask_serial(mask, n, dropout.p, dropout.row_keys[m.sequence],
                        static_cast<std::uint64_t>(m.head * 16 * dropout_mask_words(n)));
  } else {
    dropout_mask_serial(mask, n, dropout.p, dropout.key, static_cast<std::uint64_t>(m.mask_word * 16));
  }
  return mask;
}

// The mask the forward recorded for matrix m; null when dropout is off.
const std::uint16_t* recorded_matrix_mask(const Matrix& m, const AttentionDropout& dropout,
                                          const std::uint16_t* masks) {
  return dropout.p == 0.0f ? nullptr : masks + m.mask_word;
}

// The per-head products of both precisions under one name, so one kernel serves both: float
// inputs run OpenBLAS/oneDNN's fp32 GEMM, bf16 inputs accumulate in float and write float or
// (rounded once) bf16. Every product here overwrites C.
void product(Trans ta, Trans tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const float* a,
             std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc) {
  gemm_serial(ta, tb, m, n, k, alpha, a, lda, b, ldb, 0.0f, c, ldc);
}
void product(Trans ta, Trans tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const bf16* a,
             std::int64_t lda, const bf16* b, std::int64_t ldb, float* c, std::int64_t ldc) {
  gemm_bf16_serial(ta, tb, m, n, k, alpha, a, lda, b, ldb, 0.0f, c, ldc);
}
void product(Trans ta, Trans tb, std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const bf16* a,
             std::int64_t lda, const bf16* b, std::int64_t ldb, bf16* c, std::int64_t ldc) {
  gemm_bf16_serial(ta, tb, m, n, k, alpha, a, lda, b, ldb, c, ldc);
}

// A thread's (T, T) matrix of the values' GEMM input type: the dropped probabilities and,
// in bf16's backward, dS. fp32 keeps it behind its dP in one scratch (as dP's partner).
template <typename T>
T* probs_scratch(std::int64_t n, float* backward_dp);
template <>
float* probs_scratch<float>(std::int64_t n, float* backward_dp) {
  return backward_dp != nullptr ? backward_dp + n : scratch_of(forward_scratch(), n);
}
template <>
bf16* probs_scratch<bf16>(std::int64_t n, float*) {
  return scratch_of(bf16_scratch(), n);
}

// The probabilities the values are weighted by, in the GEMM's input type: dropped where a
// mask is given. fp32 without dropout uses the cache itself; bf16 always rounds a copy.
const float* probs_for_values(const float* probs, std::int64_t n, float rate, const std::uint16_t* mask,
                              float* scratch) {
  if (mask == nullptr) return probs;
  apply_dropout_mask_serial(scratch, probs, n, rate, mask);
  return scratch;
}
const bf16* probs_for_values(const float* probs, std::int64_t n, float rate, const std::uint16_t* mask,
                             bf16* scratch) {
  apply_dropout_mask_serial(scratch, probs, n, rate, mask);
  return scratch;
}

// dS as the input of the dQ and dK products: the float dS itself, or bf16's rounded copy.
const float* scores_gradient(const float* ds, std::int64_t, float*) { return ds; }
const bf16* scores_gradient(const float* ds, std::int64_t n, bf16* scratch) {
  convert_to_bf16_serial(scratch, ds, n);
  return scratch;
}

// The scores' scale: 1 / sqrt(head_dim), DeBERTa's divides by 1 + its position terms too.
float score_scale(std::int64_t head_dim, const PositionTables* rel) {
  return rel != nullptr ? rel->scale(head_dim) : 1.0f / std::sqrt(static_cast<float>(head_dim));
}

// DeBERTa's padded layout masks a padded query's every score (its 2-D mask is mask_i mask_j):
// masked_fill with the lowest float, then softmax, spreads it evenly over all T keys. Its
// scores are constants, so its dS row is zero.
void uniform_padding_queries(float* probs, const float* mask_row, std::int64_t t) {
  for (std::int64_t i = 0; i < t; ++i) {
    if (mask_row[i] != 0.0f) std::fill_n(probs + i * t, t, 1.0f / static_cast<float>(t));
  }
}

void zero_padding_queries(float* ds, const float* mask_row, std::int64_t t) {
  for (std::int64_t i = 0; i < t; ++i) {
    if (mask_row[i] != 0.0f) std::fill_n(ds + i * t, t, 0.0f);
  }
}

// rel: DeBERTa's position terms (disentangled_attention.hpp), or null.
template <typename T>
void forward(T* out, float* probs, const T* qkv, const float* mask_add, const AttentionShape& shape,
             const AttentionDropout& dropout, std::uint16_t* dropout_mask, const PositionTables* rel) {
  check_mask(dropout, dropout_mask);
  const std::int64_t d = shape.head_dim;
  const std::int64_t hid = shape.hidden();
  const std::int64_t h3 = 3 * hid;
  const float scale = score_scale(d, rel);
  const std::vector<Matrix> matrices = matrices_of(shape);
  parallel_blocks(static_cast<std::int64_t>(matrices.size()), 1, [&](std::int64_t m0, std::int64_t m1) {
    T* scratch = probs_scratch<T>(shape.seq * shape.seq, nullptr);
    for (std::int64_t i = m0; i < m1; ++i) {
      const Matrix& m = matrices[static_cast<std::size_t>(i)];
      const std::int64_t t = m.length;
      const T* q = qkv + m.qkv;  // (L, d), row stride 3H
      const T* k = q + hid;
      const T* v = q + 2 * hid;
      float* p = probs + m.probs;  // (L, L)
      product(Trans::kNo, Trans::kYes, t, t, d, scale, q, h3, k, h3, p, t);
      if (rel != nullptr) detail::add_position_scores(p, q, k, h3, {t, m.head, d, hid}, *rel, scale);
      const float* mask_row = mask_add != nullptr ? mask_add + m.sequence * t : nullptr;
      softmax_forward(p, p, mask_row, t, t);
      if (rel != nullptr && mask_row != nullptr) uniform_padding_queries(p, mask_row, t);
      const std::uint16_t* mask = draw_matrix_mask(m, dropout, dropout_mask);
      const T* p_used = probs_for_values(p, t * t, dropout.p, mask, scratch);
      product(Trans::kNo, Trans::kNo, t, d, t, 1.0f, p_used, t, v, h3, out + m.out, hid);
    }
  });
}

template <typename T>
void backward(T* dqkv, const T* dout, const T* qkv, const float* probs, const float* mask_add,
              const AttentionShape& shape, const AttentionDropout& dropout, const std::uint16_t* dropout_mask,
              const PositionTables* rel) {
  check_mask(dropout, dropout_mask);
  const std::int64_t d = shape.head_dim;
  const std::int64_t hid = shape.hidden();
  const std::int64_t h3 = 3 * hid;
  const float scale = score_scale(d, rel);
  constexpr bool kFloat = std::is_same_v<T, float>;
  const std::int64_t longest = shape.seq * shape.seq;
  const std::vector<Matrix> matrices = matrices_of(shape);
  auto one = [&](const Matrix& m, float* dp, T* scratch) {
    const std::int64_t t = m.length;
    const T* q = qkv + m.qkv;
    const T* k = q + hid;
    const T* v = q + 2 * hid;
    T* dq = dqkv + m.qkv;
    T* dk = dq + hid;
    T* dv = dq + 2 * hid;
    const T* dy = dout + m.out;  // (L, d), row stride H
    const float* p = probs + m.probs;
    const std::uint16_t* mask = recorded_matrix_mask(m, dropout, dropout_mask);
    const T* p_used = probs_for_values(p, t * t, dropout.p, mask, scratch);
    product(Trans::kNo, Trans::kYes, t, t, d, 1.0f, dy, hid, v, h3, dp, t);       // dP = dY V^T
    product(Trans::kYes, Trans::kNo, t, d, t, 1.0f, p_used, t, dy, hid, dv, h3);  // dV = P^T dY
    apply_dropout_mask_serial(dp, dp, t * t, dropout.p, mask);
    softmax_backward(dp, dp, p, t, t);  // dS
    if (rel != nullptr && mask_add != nullptr) zero_padding_queries(dp, mask_add + m.sequence * t, t);
    const T* ds = scores_gradient(dp, t * t, scratch);
    if (rel != nullptr) {
      detail::position_input_gradients(dq, dk, dp, ds, q, k, h3, {t, m.head, d, hid}, *rel, scale);
      return;
    }
    product(Trans::kNo, Trans::kNo, t, d, t, scale, ds, t, k, h3, dq, h3);   // dQ = s dS K
    product(Trans::kYes, Trans::kNo, t, d, t, scale, ds, t, q, h3, dk, h3);  // dK = s dS^T Q
  };
  auto buffers = [&] {
    float* dp = scratch_of(backward_scratch(), (kFloat ? 2 : 1) * longest);  // (L, L)
    return std::pair<float*, T*>(dp, probs_scratch<T>(longest, dp));
  };
  if (rel == nullptr) {
    parallel_blocks(static_cast<std::int64_t>(matrices.size()), 1, [&](std::int64_t m0, std::int64_t m1) {
      const auto [dp, scratch] = buffers();
      for (std::int64_t i = m0; i < m1; ++i) one(matrices[static_cast<std::size_t>(i)], dp, scratch);
    });
    return;
  }
  // The position tables' gradients sum over sequences: one thread per head, sequences in order.
  const std::int64_t rows = rel->positions.table_rows();
  if (rel->d_key != nullptr) std::fill_n(rel->d_key, rows * hid, 0.0f);
  if (rel->d_query != nullptr) std::fill_n(rel->d_query, rows * hid, 0.0f);
  parallel_blocks(shape.heads, 1, [&](std::int64_t h0, std::int64_t h1) {
    const auto [dp, scratch] = buffers();
    for (std::int64_t h = h0; h < h1; ++h) {
      for (std::int64_t b = 0; b < shape.batch; ++b) one(matrices[static_cast<std::size_t>(b * shape.heads + h)], dp, scratch);
    }
  });
}

}  // namespace

std::int64_t attention_probs_floats(const AttentionShape& shape) {
  if (shape.offsets == nullptr) return shape.batch * shape.heads * shape.seq * shape.seq;
  std::int64_t floats = 0;
  for (std::int64_t b = 0; b < shape.batch; ++b) {
    const std::int64_t length = shape.offsets[b + 1] - shape.offsets[b];
    floats += shape.heads * length * length;
  }
  return floats;
}

std::int64_t attention_dropout_mask_words(const AttentionShape& shape) {
  if (shape.offsets == nullptr) return shape.batch * shape.heads * dropout_mask_words(shape.seq * shape.seq);
  std::int64_t words = 0;
  for (std::int64_t b = 0; b < shape.batch; ++b) {
    const std::int64_t length = shape.offsets[b + 1] - shape.offsets[b];
    words += shape.heads * dropout_mask_words(length * length);
  }
  return words;
}

void attention_forward(float* out, float* probs, const float* qkv, const float* mask_add,
                       const AttentionShape& shape, const AttentionDropout& dropout,
                       std::uint16_t* dropout_mask) {
  forward(out, probs, qkv, mask_add, shape, dropout, dropout_mask, nullptr);
}

void attention_backward(float* dqkv, const float* dout, const float* qkv, const float* probs,
                        const AttentionShape& shape, const AttentionDropout& dropout,
                        const std::uint16_t* dropout_mask) {
  backward(dqkv, dout, qkv, probs, nullptr, shape, dropout, dropout_mask, nullptr);
}

void attention_forward(bf16* out, float* probs, const bf16* qkv, const float* mask_add,
                       const AttentionShape& shape, const AttentionDropout& dropout,
                       std::uint16_t* dropout_mask) {
  forward(out, probs, qkv, mask_add, shape, dropout, dropout_mask, nullptr);
}

void attention_backward(bf16* dqkv, const bf16* dout, const bf16* qkv, const float* probs,
                        const AttentionShape& shape, const AttentionDropout& dropout,
                        const std::uint16_t* dropout_mask) {
  backward(dqkv, dout, qkv, probs, nullptr, shape, dropout, dropout_mask, nullptr);
}

void disentangled_attention_forward(float* out, float* probs, const float* qkv, const float* mask_add,
                                    const AttentionShape& shape, const PositionTables& tables,
                                    const AttentionDropout& dropout, std::uint16_t* dropout_mask) {
  forward(out, probs, qkv, mask_add, shape, dropout, dropout_mask, &tables);
}

void disentangled_attention_backward(float* dqkv, const float* dout, const float* qkv, const float* probs,
                                     const float* mask_add, const AttentionShape& shape, const PositionTables& tables,
                                     const AttentionDropout& dropout, const std::uint16_t* dropout_mask) {
  backward(dqkv, dout, qkv, probs, mask_add, shape, dropout, dropout_mask, &tables);
}

void disentangled_attention_forward(bf16* out, float* probs, const bf16* qkv, const float* mask_add,
                                    const AttentionShape& shape, const PositionTables& tables,
                                    const AttentionDropout& dropout, std::uint16_t* dropout_mask) {
  forward(out, probs, qkv, mask_add, shape, dropout, dropout_mask, &tables);
}

void disentangled_attention_backward(bf16* dqkv, const bf16* dout, const bf16* qkv, const float* probs,
                                     const float* mask_add, const AttentionShape& shape, const PositionTables& tables,
                                     const AttentionDropout& dropout, const std::uint16_t* dropout_mask) {
  backward(dqkv, dout, qkv, probs, mask_add, shape, dropout, dropout_mask, &tables);
}

}  // namespace shmtrain::tensor
