#pragma once
// Fully connected layer, torch.nn.Linear semantics: weight is (out_features, in_features).
#include <cstdint>

#include "shmtrain/tensor/bf16.hpp"

namespace shmtrain::tensor {

// out (N, OC) = inp (N, IC) . weight^T + bias (OC). bias may be null.
void linear_forward(float* out, const float* inp, const float* weight, const float* bias, std::int64_t n,
                    std::int64_t in_channels, std::int64_t out_channels);

// dinp (N, IC) = dout . weight (overwritten; skipped when dinp is null);
// dweight (OC, IC) += dout^T . inp; dbias (OC) += sum over rows of dout (skipped when null).
void linear_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, std::int64_t n, std::int64_t in_channels, std::int64_t out_channels);

// --bf16 (torch.autocast semantics): bf16 inputs and weights, products accumulated in float;
// the output in float, or rounded once to bf16 when it only feeds other bf16 GEMMs.
void linear_forward(float* out, const bf16* inp, const bf16* weight, const float* bias, std::int64_t n,
                    std::int64_t in_channels, std::int64_t out_channels);
void linear_forward(bf16* out, const bf16* inp, const bf16* weight, const float* bias, std::int64_t n,
                    std::int64_t in_channels, std::int64_t out_channels);

// dinp = dout . weight (float, or rounded to bf16); dweight (float) += dout^T . inp; dbias
// (float) += column sums of dout. dout, inp and weight in bf16.
void linear_backward(float* dinp, float* dweight, float* dbias, const bf16* dout, const bf16* inp, const bf16* weight,
                     std::int64_t n, std::int64_t in_channels, std::int64_t out_channels);
void linear_backward(bf16* dinp, float* dweight, float* dbias, const bf16* dout, const bf16* inp, const bf16* weight,
                     std::int64_t n, std::int64_t in_channels, std::int64_t out_channels);

}  // namespace shmtrain::tensor
