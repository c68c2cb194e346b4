#pragma once
// The gated GELU of ModernBERT's MLP (ModernBertMLP: Wi's output chunked into input and gate):
//   out[i, c] = gelu(x[i, c]) * x[i, I + c]      x (N, 2I) = [input | gate] per row, out (N, I)
// gelu the exact erf form (hidden_activation "gelu").
#include <cstdint>

#include "shmtrain/tensor/bf16.hpp"

namespace shmtrain::tensor {

void geglu_forward(float* out, const float* x, std::int64_t n, std::int64_t width);
// The same, rounded to bf16: the input of the next bf16 GEMM (--bf16).
void geglu_forward(bf16* out, const float* x, std::int64_t n, std::int64_t width);

// dx (N, 2I): [dout * gate * gelu'(input) | dout * gelu(input)].
void geglu_backward(float* dx, const float* dout, const float* x, std::int64_t n, std::int64_t width);
// The same, rounded to bf16 (it feeds the bf16 GEMMs of Wi's backward).
void geglu_backward(bf16* dx, const float* dout, const float* x, std::int64_t n, std::int64_t width);

}  // namespace shmtrain::tensor
