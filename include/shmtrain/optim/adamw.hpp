#pragma once
// AdamW with torch.optim.AdamW semantics (decoupled weight decay applied first, bias
// correction, eps added after the square root), over the flat parameter arena. Weight decay
// follows each ParamEntry's `decay` flag (HF Trainer: none for biases and LayerNorm).
#include <cstdint>
#include <span>

#include "shmtrain/model/param_table.hpp"
#include "shmtrain/tensor/allocator.hpp"

namespace shmtrain {

struct AdamWOptions {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 0.0f;
};

class AdamW {
 public:
  // The moment arenas (m, v) come from `allocator`, table.count() floats each.
  AdamW(const ParamTable& table, AdamWOptions options, ArenaAllocator& allocator);

  // One update of every parameter at learning rate lr; increments step_count().
  void step(std::span<float> params, std::span<const float> grads, float lr);

  std::int64_t step_count() const { return step_; }
  // The state a checkpoint saves and restores.
  std::span<float> exp_avg() { return m_; }
  std::span<float> exp_avg_sq() { return v_; }
  void set_step_count(std::int64_t step) { step_ = step; }

 private:
  const ParamTable& table_;
  AdamWOptions options_;
  std::span<float> m_;
  std::span<float> v_;
  std::int64_t step_ = 0;
};

}  // namespace shmtrain
