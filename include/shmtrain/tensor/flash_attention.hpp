#pragma once
// Attention that never stores a score matrix (FlashAttention's algorithm, on CPU tiles), for
// long sequences: ModernBERT's global layers at 8,192 tokens would keep 12 x 8,192^2 floats per
// layer (3 GiB) in attention.hpp's kernels. Here the forward walks each query tile across the
// key tiles with an online softmax (running row maximum and sum) and keeps only the log-sum-exp
// of every (token, head); the backward recomputes each tile's scores from Q, K and that row
// statistic. The memory is O(N * H), the work the products the pattern actually needs.
//
//   out_i = sum_j softmax_j(q_i . k_j * scale) v_j   over the keys j that token i may see:
//   every key of its own sequence (window < 0, a global layer), or those with |i - j| <= window
//   (ModernBERT's local layers: window = local_attention / 2), so a local layer costs
//   N * (2 * window + 1) key products, not N * L.
//
// Layout as attention.hpp's packed form: qkv (N, 3H) holds [Q | K | V] per token (rotary
// positions already applied to Q and K), head h in columns [h * head_dim, (h + 1) * head_dim) of
// each third; sequence b is tokens [offsets[b], offsets[b + 1]). No dropout on the
// probabilities (ModernBERT's attention_dropout is 0 in every released config; the caller
// refuses others). The sums of every output element are formed in the same order whatever the
// number of threads: tiles are fixed by the shape, and each output tile has one owner.
#include <cstdint>

#include "shmtrain/tensor/bf16.hpp"

namespace shmtrain::tensor {

struct FlashAttentionShape {
  std::int64_t batch;  // sequences
  std::int64_t heads;
  std::int64_t head_dim;
  const std::int32_t* offsets;  // batch + 1 token offsets, from 0; every sequence >= 1 token
  std::int64_t window = -1;     // < 0: global; else keys within this distance on each side
  float scale = 0.0f;           // 0: 1 / sqrt(head_dim)
  std::int64_t tokens() const { return offsets[batch]; }
  std::int64_t hidden() const { return heads * head_dim; }
};

// out (N, H); lse (N * heads): each row's log-sum-exp of its scaled scores, for the backward.
void flash_attention_forward(float* out, float* lse, const float* qkv, const FlashAttentionShape& shape);

// dqkv (N, 3H) overwritten from dout (N, H); qkv, out and lse as the forward left them.
void flash_attention_backward(float* dqkv, const float* dout, const float* qkv, const float* out,
                              const float* lse, const FlashAttentionShape& shape);

// --bf16: Q, K, V, dout and the outputs in bf16; every product accumulates in float, the
// softmax statistics and the score tiles are float (torch.autocast's semantics). out and dqkv
// are rounded once to bf16.
void flash_attention_forward(bf16* out, float* lse, const bf16* qkv, const FlashAttentionShape& shape);
void flash_attention_backward(bf16* dqkv, const bf16* dout, const bf16* qkv, const bf16* out, const float* lse,
                              const FlashAttentionShape& shape);

}  // namespace shmtrain::tensor
