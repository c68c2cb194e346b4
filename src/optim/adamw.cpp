#include "shmtrain/optim/adamw.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "adamw_update.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain::optim {

AdamW::AdamW(std::vector<ParamSlot> slots, AdamWOptions options, tensor::ArenaAllocator& allocator)
    : AdamW(slots, options, allocator, 0, slots_end(slots)) {}

AdamW::AdamW(std::vector<ParamSlot> slots, AdamWOptions options, tensor::ArenaAllocator& allocator,
             std::int64_t begin, std::int64_t end)
    : slots_(std::move(slots)),
      options_(options),
      begin_(begin),
      end_(end),
      m_(allocator.allocate(static_cast<std::size_t>(end - begin), "AdamW exp_avg")),
      v_(allocator.allocate(static_cast<std::size_t>(end - begin), "AdamW exp_avg_sq")) {
  if (begin < 0 || end < begin) throw Error(fmt::format("AdamW: bad arena range [{}, {})", begin, end));
}

void AdamW::step(std::span<float> params, std::span<const float> grads, float lr,
                 std::span<tensor::bf16> params16, float grad_scale) {
  ++step_;
  // torch computes the corrections in Python floats (double) and passes them on as scalars.
  const double bias_correction1 =
      1.0 - std::pow(static_cast<double>(options_.beta1), static_cast<double>(step_));
  const double bias_correction2 =
      1.0 - std::pow(static_cast<double>(options_.beta2), static_cast<double>(step_));
  AdamWScalars k{.beta1 = options_.beta1,
                 .beta2 = options_.beta2,
                 .eps = options_.eps,
                 .step_size = static_cast<float>(lr / bias_correction1),
                 .bias_correction2_sqrt = static_cast<float>(std::sqrt(bias_correction2)),
                 .grad_scale = grad_scale};
  for (const ParamSlot& e : slots_) {
    const std::int64_t lo = std::max(e.offset, begin_);
    const std::int64_t hi = std::min(e.offset + e.size, end_);
    if (lo >= hi) continue;
    k.decay = e.decay ? 1.0f - lr * options_.weight_decay : 1.0f;
    const std::int64_t at = lo - begin_;
    AdamWPointers ptr{params.data() + at, grads.data() + at, m_.data() + at, v_.data() + at,
                      params16.empty() ? nullptr : params16.data() + at};
    tensor::parallel_blocks(hi - lo, 16384,
                            [&](std::int64_t i0, std::int64_t i1) { adamw_update(ptr, i0, i1, k); });
  }
}

}  // namespace shmtrain::optim
