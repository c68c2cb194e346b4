#include "shmtrain/tensor/relu.hpp"

namespace shmtrain::tensor {

// The head's tensors are (batch, hidden): too small to be worth a parallel loop.
void relu_forward(float* out, const float* inp, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = inp[i] > 0.0f ? inp[i] : 0.0f;
}

void relu_backward(float* dinp, const float* dout, const float* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dinp[i] = out[i] > 0.0f ? dout[i] : 0.0f;
}

}  // namespace shmtrain::tensor
