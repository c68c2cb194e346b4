#pragma once
// LayerNorm over the last dimension, torch.nn.LayerNorm semantics (biased variance, eps
// inside the square root).
#include <cstdint>

namespace shmtrain::tensor {

// out (N, C) = (inp - mean) * rstd * weight + bias; caches mean (N) and rstd (N) for backward.
// bias may be null: LayerNorm(bias=False), as ModernBERT's norms.
void layernorm_forward(float* out, float* mean, float* rstd, const float* inp, const float* weight,
                       const float* bias, std::int64_t n, std::int64_t channels, float eps);

// dinp (N, C) overwritten; dweight (C) and dbias (C) accumulated (dbias null: no bias).
void layernorm_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                        const float* weight, const float* mean, const float* rstd, std::int64_t n,
                        std::int64_t channels);

}  // namespace shmtrain::tensor
