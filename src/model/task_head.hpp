#pragma once
// Internal to model: a task head on the backbone's last hidden states (N, H), one row per
// token of the batch's layout (padded or packed, data/batch.hpp).
#include <cstdint>
#include <span>

#include "shmtrain/data/batch.hpp"
#include "shmtrain/model/step_context.hpp"

namespace shmtrain::model {

class TaskHead {
 public:
  virtual ~TaskHead() = default;

  // hidden (N, H) -> logits; returns the mean loss over the batch, NaN when the batch has
  // no targets. `hidden` must stay valid until backward.
  virtual float forward(const float* hidden, const data::Batch& batch, const StepContext& context) = 0;

  // Writes d(loss)/d(hidden) (N, H) into dhidden, every element; accumulates the head's
  // parameter gradients, scaled by loss_scale.
  virtual void backward(float* dhidden, float loss_scale) = 0;

  virtual std::span<const float> logits() const = 0;
  // Row b's part of logits(): its scores, or its tokens' (one row of the layout, no padding
  // for a packed batch).
  virtual std::span<const float> row_logits(std::int64_t b) const = 0;

  // The arena offset of the head's first parameter: backward finishes [offset, end).
  virtual std::int64_t first_offset() const = 0;
};

}  // namespace shmtrain::model
