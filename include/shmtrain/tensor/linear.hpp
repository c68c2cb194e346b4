#pragma once
// Fully connected layer, torch.nn.Linear semantics: weight is (out_features, in_features).
#include <cstdint>

namespace shmtrain {

// out (N, OC) = inp (N, IC) . weight^T + bias (OC). bias may be null.
void linear_forward(float* out, const float* inp, const float* weight, const float* bias, std::int64_t n,
                    std::int64_t in_channels, std::int64_t out_channels);

// dinp (N, IC) = dout . weight (overwritten; skipped when dinp is null);
// dweight (OC, IC) += dout^T . inp; dbias (OC) += sum over rows of dout (skipped when null).
void linear_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, std::int64_t n, std::int64_t in_channels, std::int64_t out_channels);

}  // namespace shmtrain
