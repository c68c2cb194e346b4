#pragma once
// Global-norm gradient clipping, torch.nn.utils.clip_grad_norm_ semantics: the L2 norm over
// all gradients; when it exceeds max_norm every gradient is scaled by
// max_norm / (norm + 1e-6). The scaling itself happens inside AdamW's pass (its grad_scale),
// so the gradients are read once, not read, written and read again.
#include <span>

namespace shmtrain::optim {

// Deterministic: fixed blocks of 16 lanes, summed in order, in double.
double global_grad_norm(std::span<const float> grads);

// The factor clip_grad_norm_ multiplies the gradients by: max_norm / (norm + 1e-6) when that
// is below 1, else 1. max_norm <= 0 disables clipping (1).
float clip_coefficient(double norm, double max_norm);

}  // namespace shmtrain::optim
