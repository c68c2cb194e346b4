#pragma once
// Row softmax with an optional additive mask per column (the attention's key mask:
// 0 for real tokens, float32's lowest value for padding, as Hugging Face adds it).
// These run on the calling thread: the attention kernel calls them inside its own
// parallel loop over (batch, head).
#include <cstdint>

namespace shmtrain::tensor {

// probs (R, T) = softmax(scores + mask_add) over each row; mask_add (T) may be null;
// probs may alias scores.
void softmax_forward(float* probs, const float* scores, const float* mask_add, std::int64_t rows,
                     std::int64_t cols);

// dscores (R, T) = probs * (dprobs - sum_j dprobs_j * probs_j). dscores may alias dprobs.
void softmax_backward(float* dscores, const float* dprobs, const float* probs, std::int64_t rows,
                      std::int64_t cols);

}  // namespace shmtrain::tensor
