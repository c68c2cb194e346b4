#pragma once
// tanh activation (the BERT pooler's).
#include <cstdint>

namespace shmtrain::tensor {

void tanh_forward(float* out, const float* inp, std::int64_t n);

// dinp = dout * (1 - out^2), from the forward's output. dinp may alias dout.
void tanh_backward(float* dinp, const float* dout, const float* out, std::int64_t n);

}  // namespace shmtrain::tensor
