#pragma once
// GELU, the exact erf form (torch.nn.functional.gelu, HF "gelu"):
// gelu(x) = x * Phi(x) = 0.5 * x * (1 + erf(x / sqrt(2))).
#include <cstdint>

#include "shmtrain/tensor/bf16.hpp"

namespace shmtrain::tensor {

void gelu_forward(float* out, const float* inp, std::int64_t n);
// The same, rounded to bf16: the input of the next bf16 GEMM (--bf16).
void gelu_forward(bf16* out, const float* inp, std::int64_t n);

// dinp = dout * (Phi(x) + x * phi(x)), phi the standard normal density. dinp may alias dout.
void gelu_backward(float* dinp, const float* dout, const float* inp, std::int64_t n);
// The same, rounded to bf16 (--bf16: it feeds the bf16 GEMMs of the linear's backward).
void gelu_backward(bf16* dinp, const float* dout, const float* inp, std::int64_t n);

}  // namespace shmtrain::tensor
