#include "shmtrain/optim/adamw.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain {

AdamW::AdamW(const ParamTable& table, AdamWOptions options, ArenaAllocator& allocator)
    : AdamW(table, options, allocator, 0, table.count()) {}

AdamW::AdamW(const ParamTable& table, AdamWOptions options, ArenaAllocator& allocator, std::int64_t begin,
             std::int64_t end)
    : table_(table),
      options_(options),
      begin_(begin),
      end_(end),
      m_(allocator.allocate(static_cast<std::size_t>(end - begin), "AdamW exp_avg")),
      v_(allocator.allocate(static_cast<std::size_t>(end - begin), "AdamW exp_avg_sq")) {
  if (begin < 0 || end < begin) throw Error(fmt::format("AdamW: bad arena range [{}, {})", begin, end));
}

void AdamW::step(std::span<float> params, std::span<const float> grads, float lr, std::span<bf16> params16) {
  ++step_;
  const float b1 = options_.beta1;
  const float b2 = options_.beta2;
  // torch computes the corrections in Python floats (double) and passes them on as scalars.
  const double bias_correction1 = 1.0 - std::pow(static_cast<double>(b1), static_cast<double>(step_));
  const double bias_correction2 = 1.0 - std::pow(static_cast<double>(b2), static_cast<double>(step_));
  const float step_size = static_cast<float>(lr / bias_correction1);
  const float bias_correction2_sqrt = static_cast<float>(std::sqrt(bias_correction2));
  for (const ParamEntry& e : table_.entries()) {
    const std::int64_t lo = std::max(e.offset, begin_);
    const std::int64_t hi = std::min(e.offset + e.size, end_);
    if (lo >= hi) continue;
    const float decay = e.decay ? 1.0f - lr * options_.weight_decay : 1.0f;
    const std::int64_t at = lo - begin_;
    float* p = params.data() + at;
    const float* g = grads.data() + at;
    float* m = m_.data() + at;
    float* v = v_.data() + at;
    bf16* p16 = params16.empty() ? nullptr : params16.data() + at;
    parallel_blocks(hi - lo, 16384, [&](std::int64_t i0, std::int64_t i1) {
      for (std::int64_t i = i0; i < i1; ++i) {
        p[i] *= decay;
        m[i] = b1 * m[i] + (1.0f - b1) * g[i];  // torch: exp_avg.mul_(b1).add_(g, alpha=1-b1) (lerp in 2.x)
        v[i] = b2 * v[i] + (1.0f - b2) * g[i] * g[i];
        const float denom = std::sqrt(v[i]) / bias_correction2_sqrt + options_.eps;
        p[i] -= step_size * (m[i] / denom);
      }
      if (p16 != nullptr) convert_to_bf16_serial(p16 + i0, p + i0, i1 - i0);
    });
  }
}

}  // namespace shmtrain
