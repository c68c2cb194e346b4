#pragma once
// Global-norm gradient clipping, torch.nn.utils.clip_grad_norm_ semantics: the L2 norm over
// all gradients; when it exceeds max_norm every gradient is scaled by
// max_norm / (norm + 1e-6). Deterministic: fixed blocks, summed in order, in double.
#include <span>

namespace shmtrain {

double global_grad_norm(std::span<const float> grads);

// Scales grads by max_norm / (norm + 1e-6) when that is below 1, for a norm computed elsewhere
// (a sharded optimizer's slice is clipped by the global norm of all slices). max_norm <= 0: no-op.
void scale_to_max_norm(std::span<float> grads, double norm, double max_norm);

// Returns the norm before clipping (what HF logs as grad_norm). max_norm <= 0 disables clipping.
double clip_grad_norm(std::span<float> grads, double max_norm);

}  // namespace shmtrain
