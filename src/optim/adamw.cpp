#include "shmtrain/optim/adamw.hpp"

#include <cmath>

#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain {

AdamW::AdamW(const ParamTable& table, AdamWOptions options, ArenaAllocator& allocator)
    : table_(table),
      options_(options),
      m_(allocator.allocate(static_cast<std::size_t>(table.count()), "AdamW exp_avg")),
      v_(allocator.allocate(static_cast<std::size_t>(table.count()), "AdamW exp_avg_sq")) {}

void AdamW::step(std::span<float> params, std::span<const float> grads, float lr) {
  ++step_;
  const float b1 = options_.beta1;
  const float b2 = options_.beta2;
  // torch computes the corrections in Python floats (double) and passes them on as scalars.
  const double bias_correction1 = 1.0 - std::pow(static_cast<double>(b1), static_cast<double>(step_));
  const double bias_correction2 = 1.0 - std::pow(static_cast<double>(b2), static_cast<double>(step_));
  const float step_size = static_cast<float>(lr / bias_correction1);
  const float bias_correction2_sqrt = static_cast<float>(std::sqrt(bias_correction2));
  for (const ParamEntry& e : table_.entries()) {
    const float decay = e.decay ? 1.0f - lr * options_.weight_decay : 1.0f;
    float* p = params.data() + e.offset;
    const float* g = grads.data() + e.offset;
    float* m = m_.data() + e.offset;
    float* v = v_.data() + e.offset;
    parallel_blocks(e.size, 16384, [&](std::int64_t i0, std::int64_t i1) {
      for (std::int64_t i = i0; i < i1; ++i) {
        p[i] *= decay;
        m[i] = b1 * m[i] + (1.0f - b1) * g[i];  // torch: exp_avg.mul_(b1).add_(g, alpha=1-b1) (lerp in 2.x)
        v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
        const float denom = std::sqrt(v[i]) / bias_correction2_sqrt + options_.eps;
        p[i] -= step_size * (m[i] / denom);
      }
    });
  }
}

}  // namespace shmtrain
