#pragma once
// Multi-head self-attention core (Hugging Face BertSelfAttention, between the Q/K/V linears
// and the output dense):
//   scores = Q K^T / sqrt(head_dim) + mask_add      per (batch, head): (T, T)
//   probs  = softmax(scores);  probs_d = dropout(probs);  out = probs_d V
// Q, K and V come from one fused linear: qkv (N, 3H) holds [Q | K | V] per token, head h in
// columns [h * head_dim, (h + 1) * head_dim) of each third.
//
// Two layouts of the N tokens: padded, B rows of T tokens (N = B * T) whose padding keys
// mask_add hides; or packed, the B sequences laid end to end without padding (N = the sum of
// their lengths), each attending only to itself (a block-diagonal attention), so every product
// runs on real tokens only.
#include <cstdint>

#include "shmtrain/tensor/bf16.hpp"
#include "shmtrain/tensor/dropout.hpp"

namespace shmtrain::tensor {

struct AttentionShape {
  std::int64_t batch;
  std::int64_t seq;  // padded: every row's length; packed: the longest sequence's
  std::int64_t heads;
  std::int64_t head_dim;
  // Packed: sequence b is tokens [offsets[b], offsets[b + 1]) (batch + 1 entries, from 0,
  // every sequence at least one token long); null: padded.
  const std::int32_t* offsets = nullptr;
  std::int64_t hidden() const { return heads * head_dim; }
};

// The floats of the probabilities cache: one (L, L) matrix per (sequence, head).
std::int64_t attention_probs_floats(const AttentionShape& shape);

struct AttentionDropout {
  float p = 0.0f;  // attention_probs_dropout_prob; 0 in evaluation
  DropoutKey key;
  // When set (batch entries): sequence b's (head, L, L) matrices draw from row_keys[b], head h
  // from element h * 16 * dropout_mask_words(L * L) on, so a sequence's masks do not depend on
  // the sequences beside it. Null: every matrix draws from `key`, from its place in the batch.
  const DropoutKey* row_keys = nullptr;
};

// The words of a recorded mask for all (sequence, head) probability matrices.
std::int64_t attention_dropout_mask_words(const AttentionShape& shape);

// out (N, H); probs (attention_probs_floats(shape)) caches the softmax before dropout for
// backward, (sequence, head) matrices in order; qkv (N, 3H); mask_add (B, T), padded only: 0
// for tokens, float32's lowest value for padding keys (null when packed).
// dropout_mask (attention_dropout_mask_words(shape) words) records the dropout mask for the
// backward. REQUIRES: dropout_mask not null when dropout.p > 0.
void attention_forward(float* out, float* probs, const float* qkv, const float* mask_add,
                       const AttentionShape& shape, const AttentionDropout& dropout, std::uint16_t* dropout_mask);

// dqkv (N, 3H) overwritten from dout (N, H); qkv, probs, dropout and dropout_mask as the
// forward left them.
void attention_backward(float* dqkv, const float* dout, const float* qkv, const float* probs,
                        const AttentionShape& shape, const AttentionDropout& dropout, const std::uint16_t* dropout_mask);

// --bf16: the two products per (batch, head) take bf16 inputs and accumulate in float; the
// softmax, its cache and its backward stay in float. out and dqkv are rounded once to bf16
// (they only feed bf16 GEMMs).
void attention_forward(bf16* out, float* probs, const bf16* qkv, const float* mask_add, const AttentionShape& shape,
                       const AttentionDropout& dropout, std::uint16_t* dropout_mask);
void attention_backward(bf16* dqkv, const bf16* dout, const bf16* qkv, const float* probs,
                        const AttentionShape& shape, const AttentionDropout& dropout, const std::uint16_t* dropout_mask);

}  // namespace shmtrain::tensor
