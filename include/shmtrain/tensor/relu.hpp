#pragma once
// ReLU (torch.nn.ReLU), the activation of DistilBERT's classification head (pre_classifier).
#include <cstdint>

namespace shmtrain::tensor {

// out = max(x, 0). out may alias inp.
void relu_forward(float* out, const float* inp, std::int64_t n);

// dinp = out > 0 ? dout : 0, from the forward's output (torch's threshold_backward: the
// gradient at 0 is 0). dinp may alias dout.
void relu_backward(float* dinp, const float* dout, const float* out, std::int64_t n);

}  // namespace shmtrain::tensor
