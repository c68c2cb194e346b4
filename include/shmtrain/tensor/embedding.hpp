#pragma once
// BERT's input embeddings: word + position + token type, summed (before the LayerNorm).
#include <cstdint>

namespace shmtrain::tensor {

// out (N, H) = wte[ids] + wpe[positions] + wtt[token_type_ids] for N tokens, padded rows or
// sequences laid end to end alike (the caller numbers each token's position).
// REQUIRES: ids, positions and token types already checked against the table sizes.
void embedding_forward(float* out, const std::int32_t* ids, const std::int32_t* token_type_ids,
                       const std::int32_t* positions, const float* wte, const float* wpe, const float* wtt,
                       std::int64_t tokens, std::int64_t hidden);

// Scatter-adds dout (N, H) into dwte (V, H), dwpe (P, H), dwtt (TV, H). Rows whose id is
// pad_id add nothing to dwte (torch's padding_idx). Deterministic: each thread owns a slice of
// channels and walks the tokens in order.
void embedding_backward(float* dwte, float* dwpe, float* dwtt, const float* dout, const std::int32_t* ids,
                        const std::int32_t* token_type_ids, const std::int32_t* positions,
                        std::int64_t tokens, std::int64_t hidden, std::int64_t pad_id);

}  // namespace shmtrain::tensor
