#pragma once
// Inverted dropout (torch.nn.Dropout semantics: kept values scaled by 1 / (1 - p)) with a
// counter-based generator: whether element i is kept is a pure function of (key, i), so the
// mask is reproducible per (seed, rank, step, site) and does not depend on the thread count.
//
// The forward records the mask it drew, one bit per element, and the backward reads it back
// instead of hashing every element again.
#include <cstdint>

#include "shmtrain/tensor/bf16.hpp"

namespace shmtrain::tensor {

struct DropoutKey {
  std::uint64_t value = 0;
};

// One key per use: `site` numbers the dropout places in the model (layer and position).
DropoutKey dropout_key(std::uint64_t seed, std::uint64_t rank, std::uint64_t step, std::uint64_t site);

// True when element `index` is kept at drop probability p (0 <= p < 1).
bool dropout_keep(DropoutKey key, std::uint64_t index, float p);

// A recorded mask of n elements: bit i % 16 of word i / 16 is set when element i was kept.
std::int64_t dropout_mask_words(std::int64_t n);

// mask (dropout_mask_words(n) words) = the keep bits of elements offset .. offset + n - 1.
// The generator runs 16 elements per step when offset is a multiple of 16, one otherwise.
void dropout_mask_serial(std::uint16_t* mask, std::int64_t n, float p, DropoutKey key, std::uint64_t offset);

// out[i] = bit i of mask ? in[i] / (1 - p) : 0; p == 0 copies (mask unused). out may alias in.
// The bf16 form rounds once.
void apply_dropout_mask_serial(float* out, const float* in, std::int64_t n, float p, const std::uint16_t* mask);
void apply_dropout_mask_serial(bf16* out, const float* in, std::int64_t n, float p, const std::uint16_t* mask);

// out[i] = keep(offset + i) ? inp[i] / (1 - p) : 0, for i in [0, n), over the compute threads.
// out may alias inp. When mask is not null it receives the mask (dropout_mask_words(n) words)
// for dropout_backward.
void dropout_forward(float* out, const float* inp, std::int64_t n, float p, DropoutKey key,
                     std::uint64_t offset = 0, std::uint16_t* mask = nullptr);

// dinp[i] = bit i of the forward's mask ? dout[i] / (1 - p) : 0. dinp may alias dout.
// REQUIRES: mask is the one dropout_forward recorded (unused when p == 0).
void dropout_backward(float* dinp, const float* dout, std::int64_t n, float p, const std::uint16_t* mask);
void dropout_backward(bf16* dinp, const float* dout, std::int64_t n, float p, const std::uint16_t* mask);

// The same from the key, drawing the mask again: for the small sites (embeddings, heads)
// whose forward keeps no mask.
void dropout_backward(float* dinp, const float* dout, std::int64_t n, float p, DropoutKey key,
                      std::uint64_t offset = 0);

}  // namespace shmtrain::tensor
