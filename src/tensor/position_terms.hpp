#pragma once
// Internal to tensor: one (sequence, head) matrix's share of DeBERTa's position terms
// (disentangled_attention.hpp), called by attention.cpp's kernels between their products.
#include <cstdint>

#include "shmtrain/tensor/disentangled_attention.hpp"

namespace shmtrain::tensor::detail {

struct TermMatrix {
  std::int64_t length;    // L: the sequence's tokens
  std::int64_t head;      // which columns of the tables
  std::int64_t head_dim;  // d
  std::int64_t hidden;    // H: the tables' row stride
};

// scores (L, L), already q.k * scale, gain the c2p and p2c terms. q and k: (L, d), row stride ld.
template <typename T>
void add_position_scores(float* scores, const T* q, const T* k, std::int64_t ld, const TermMatrix& m,
                         const PositionTables& tables, float scale);

// From dS (float, and ds_t: the same in T, the products' input type): dq and dk (row stride ld)
// overwritten with the content and position parts, and the matrix's share added to the tables'
// gradients (head m.head's columns). REQUIRES: no other thread adds to that head's columns.
template <typename T>
void position_input_gradients(T* dq, T* dk, const float* ds, const T* ds_t, const T* q, const T* k,
                              std::int64_t ld, const TermMatrix& m, const PositionTables& tables,
                              float scale);

}  // namespace shmtrain::tensor::detail
