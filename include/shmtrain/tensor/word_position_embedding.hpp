#pragma once
// DistilBERT's input embeddings: word + position, summed (before the LayerNorm); with no
// position table (wpe and dwpe null), ModernBERT's: the word embedding alone. BERT's, which add
// token types too, are embedding.hpp.
#include <cstdint>

namespace shmtrain::tensor {

// out (N, H) = wte[ids] + wpe[positions] for N tokens (embedding.hpp says how positions come).
// REQUIRES: ids and positions already checked against the table sizes.
void word_position_embedding_forward(float* out, const std::int32_t* ids, const std::int32_t* positions,
                                     const float* wte, const float* wpe, std::int64_t tokens,
                                     std::int64_t hidden);

// Scatter-adds dout (N, H) into dwte (V, H) and dwpe (P, H). Rows whose id is pad_id add
// nothing to dwte (torch's padding_idx). Deterministic: each thread owns a slice of channels
// and walks the tokens in order.
void word_position_embedding_backward(float* dwte, float* dwpe, const float* dout, const std::int32_t* ids,
                                      const std::int32_t* positions, std::int64_t tokens, std::int64_t hidden,
                                      std::int64_t pad_id);

}  // namespace shmtrain::tensor
