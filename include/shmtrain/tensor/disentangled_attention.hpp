#pragma once
// DeBERTa's disentangled attention (transformers' DisentangledSelfAttention, deberta-v2 and
// v3): the scores of tensor/attention.hpp gain a content-to-position and a position-to-content
// term, read from two position tables, the relative-position embeddings through the layer's
// key and query projections (Kr and Qr, each (2 span, H), head h in columns [h d, (h+1) d)):
//   scores[i, j] = (q_i . k_j + q_i . Kr[c2p_row(i - j)] + k_j . Qr[p2c_row(i - j)]) * scale
//   scale = 1 / sqrt(head_dim * (1 + the number of terms))
// then the same mask, softmax, dropout and values; in the padded layout a padded query (whose
// every score DeBERTa's 2-D mask fills with the lowest float) attends evenly to all T keys, as
// transformers' masked_fill + softmax does (only what the padding positions output changes). Per (sequence,
// head) the terms are two products with the table rows the sequence can reach (at most 2 L - 1 of them) and a
// gather; the backward scatters dS onto those rows, so each sequence's relative positions are its own, packed
// or padded alike. The tables' gradients are sums over every sequence: each head's columns are summed by one
// thread, sequences in order, so they do not depend on the thread count.
#include <cstdint>

#include "shmtrain/tensor/attention.hpp"
#include "shmtrain/tensor/bf16.hpp"
#include "shmtrain/tensor/relative_positions.hpp"

namespace shmtrain::tensor {

struct PositionTables {
  RelativePositions positions;
  // Kr, for the c2p term, and Qr, for the p2c term; null: the config has no such term. A bf16
  // run reads their bf16 copies instead.
  const float* key = nullptr;
  const float* query = nullptr;
  const bf16* key16 = nullptr;
  const bf16* query16 = nullptr;
  // Backward: dL/dKr and dL/dQr (2 span, H), overwritten (where the term exists).
  float* d_key = nullptr;
  float* d_query = nullptr;

  int terms() const {
    return (key != nullptr || key16 != nullptr ? 1 : 0) + (query != nullptr || query16 != nullptr ? 1 : 0);
  }
  float scale(std::int64_t head_dim) const;
};

// As attention_forward / attention_backward (attention.hpp), with the position terms; the
// backward takes the forward's mask_add too.
void disentangled_attention_forward(float* out, float* probs, const float* qkv, const float* mask_add,
                                    const AttentionShape& shape, const PositionTables& tables,
                                    const AttentionDropout& dropout, std::uint16_t* dropout_mask);
void disentangled_attention_backward(float* dqkv, const float* dout, const float* qkv, const float* probs,
                                     const float* mask_add, const AttentionShape& shape,
                                     const PositionTables& tables, const AttentionDropout& dropout,
                                     const std::uint16_t* dropout_mask);
void disentangled_attention_forward(bf16* out, float* probs, const bf16* qkv, const float* mask_add,
                                    const AttentionShape& shape, const PositionTables& tables,
                                    const AttentionDropout& dropout, std::uint16_t* dropout_mask);
void disentangled_attention_backward(bf16* dqkv, const bf16* dout, const bf16* qkv, const float* probs,
                                     const float* mask_add, const AttentionShape& shape,
                                     const PositionTables& tables, const AttentionDropout& dropout,
                                     const std::uint16_t* dropout_mask);

}  // namespace shmtrain::tensor
