#pragma once
// What a model's forward and backward are told besides the batch.
#include <cstdint>
#include <functional>

namespace shmtrain::model {

// What makes a forward pass reproducible: dropout only when training, its masks a function
// of (seed, rank, step).
struct StepContext {
  bool train = false;
  std::uint64_t seed = 0;
  std::uint64_t rank = 0;
  std::uint64_t step = 0;
};

// Called during backward with an arena offset: from there to the end of the arena, every
// gradient is final for this backward. The parameter table orders parameters so that
// backward finishes them from the end (the head, then the layers from the last, then the
// embeddings), so the calls come with decreasing offsets, the last with 0.
using GradientsFinal = std::function<void(std::int64_t offset)>;

}  // namespace shmtrain::model
