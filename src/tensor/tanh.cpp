#include "shmtrain/tensor/tanh.hpp"

#include <cmath>

namespace shmtrain::tensor {

// The pooler's tensors are (batch, hidden): too small to be worth a parallel loop.
void tanh_forward(float* out, const float* inp, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = std::tanh(inp[i]);
}

void tanh_backward(float* dinp, const float* dout, const float* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dinp[i] = dout[i] * (1.0f - out[i] * out[i]);
}

}  // namespace shmtrain::tensor
