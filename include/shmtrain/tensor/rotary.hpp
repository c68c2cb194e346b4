#pragma once
// Rotary position embeddings on the fused Q/K/V rows (Hugging Face's apply_rotary_pos_emb,
// the rotate_half form, as ModernBERT uses it): for each head of Q and K, element c < d/2 and
// its partner c + d/2 rotate by the angle p * inv_freq[c] of the token's position p in its own
// sequence:
//   x'[c]       = x[c] cos - x[c + d/2] sin
//   x'[c + d/2] = x[c + d/2] cos + x[c] sin,     inv_freq[c] = 1 / theta^(2c / d)
// V is untouched. The angles, cosines and sines are float32, computed as transformers does
// (inv_freq and p * inv_freq rounded to float), so long positions round the same way.
#include <cstdint>
#include <vector>

#include "shmtrain/tensor/bf16.hpp"

namespace shmtrain::tensor {

// cos and sin of every (position, c < head_dim / 2) up to `positions`.
class RotaryTable {
 public:
  RotaryTable(double theta, std::int64_t head_dim, std::int64_t positions);
  std::int64_t head_dim() const { return head_dim_; }
  std::int64_t positions() const { return positions_; }
  const float* cos(std::int64_t position) const { return cos_.data() + position * (head_dim_ / 2); }
  const float* sin(std::int64_t position) const { return sin_.data() + position * (head_dim_ / 2); }

 private:
  std::int64_t head_dim_, positions_;
  std::vector<float> cos_, sin_;
};

// qkv (N, 3 * heads * head_dim), rotated in place; positions (N): each token's place in its
// sequence. REQUIRES: every position < table.positions(), head_dim even and the table's.
void rotary_forward(float* qkv, const std::int32_t* positions, std::int64_t n, std::int64_t heads,
                    const RotaryTable& table);
// --bf16: the rotation in float, each result rounded once to bf16.
void rotary_forward(bf16* qkv, const std::int32_t* positions, std::int64_t n, std::int64_t heads,
                    const RotaryTable& table);

// The backward: dqkv's Q and K gradients rotated back (by -angle), in place.
void rotary_backward(float* dqkv, const std::int32_t* positions, std::int64_t n, std::int64_t heads,
                     const RotaryTable& table);
void rotary_backward(bf16* dqkv, const std::int32_t* positions, std::int64_t n, std::int64_t heads,
                     const RotaryTable& table);

}  // namespace shmtrain::tensor
