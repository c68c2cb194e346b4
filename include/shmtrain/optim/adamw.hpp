#pragma once
// AdamW with torch.optim.AdamW semantics (decoupled weight decay applied first, bias
// correction, eps added after the square root), over the flat parameter arena. Weight decay
// follows each ParamSlot's `decay` flag (HF Trainer: none for biases and LayerNorm).
//
// An AdamW may own only a range [begin, end) of the arena: with --shard_optimizer each worker
// updates its own slice and keeps moments for it alone. Every span it takes or gives is then
// that range's window (element 0 is arena float `begin`).
#include <cstdint>
#include <span>
#include <vector>

#include "shmtrain/optim/param_slot.hpp"
#include "shmtrain/tensor/allocator.hpp"
#include "shmtrain/tensor/bf16.hpp"

namespace shmtrain::optim {

struct AdamWOptions {
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 0.0f;
};

// The whole state of an AdamW over the arena, as a checkpoint holds it.
struct AdamWState {
  std::vector<float> exp_avg;     // slots_end(slots) floats
  std::vector<float> exp_avg_sq;  // slots_end(slots) floats
  std::int64_t step = 0;
};

class AdamW {
 public:
  // The whole arena [0, slots_end(slots)).
  AdamW(std::vector<ParamSlot> slots, AdamWOptions options, tensor::ArenaAllocator& allocator);
  // Arena floats [begin, end); end may pass slots_end(slots) (the padded tail holds no
  // parameter). The moments (end - begin floats each) come from `allocator`.
  AdamW(std::vector<ParamSlot> slots, AdamWOptions options, tensor::ArenaAllocator& allocator,
        std::int64_t begin, std::int64_t end);

  // One update of the range's parameters at learning rate lr, from grads * grad_scale (the
  // clipping coefficient, clip.hpp); increments step_count(). params16 (--bf16), when given,
  // receives the updated parameters rounded to bf16 in the same pass, while they are still in
  // cache. REQUIRES: params and grads (and params16 when not empty) hold the range's
  // end - begin values.
  void step(std::span<float> params, std::span<const float> grads, float lr,
            std::span<tensor::bf16> params16 = {}, float grad_scale = 1.0f);

  std::int64_t begin() const { return begin_; }
  std::int64_t end() const { return end_; }

  std::int64_t step_count() const { return step_; }
  // The state a checkpoint saves and restores.
  std::span<float> exp_avg() const { return m_; }
  std::span<float> exp_avg_sq() const { return v_; }
  void set_step_count(std::int64_t step) { step_ = step; }

 private:
  std::vector<ParamSlot> slots_;
  AdamWOptions options_;
  std::int64_t begin_;
  std::int64_t end_;
  std::span<float> m_;
  std::span<float> v_;
  std::int64_t step_ = 0;
};

}  // namespace shmtrain::optim
