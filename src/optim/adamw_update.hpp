#pragma once
// AdamW's per-element update (private to optim/): one pass over a range of the arena that
// reads each parameter, gradient and moment once and writes them (and the bf16 copy) once.
#include <cstdint>

#include "shmtrain/tensor/bf16.hpp"

namespace shmtrain::optim {

struct AdamWScalars {
  float beta1, beta2, eps;
  float step_size;              // lr / (1 - beta1^t)
  float bias_correction2_sqrt;  // sqrt(1 - beta2^t)
  float grad_scale;             // the clipping coefficient, 1 when not clipping
  float decay = 1.0f;           // 1 - lr * weight_decay, or 1 for entries without decay
};

struct AdamWPointers {
  float* param;
  const float* grad;
  float* exp_avg;
  float* exp_avg_sq;
  tensor::bf16* param16;  // null without --bf16
};

// For i in [i0, i1), torch.optim.AdamW's single-tensor step on g = grad * grad_scale:
//   p *= decay;  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g g
//   p -= step_size * m / (sqrt(v) / bias_correction2_sqrt + eps);  param16 = bf16(p)
// 16 elements per step with AVX-512 (a masked tail, so any cut gives the same values).
void adamw_update(const AdamWPointers& at, std::int64_t i0, std::int64_t i1, const AdamWScalars& k);

}  // namespace shmtrain::optim
