#include "shmtrain/optim/clip.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain {
namespace {
constexpr std::int64_t kBlock = 1 << 16;
}

double global_grad_norm(std::span<const float> grads) {
  const auto n = static_cast<std::int64_t>(grads.size());
  const std::int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<double> partial(static_cast<std::size_t>(blocks), 0.0);
  parallel_blocks(blocks, 1, [&](std::int64_t b0, std::int64_t b1) {
    for (std::int64_t b = b0; b < b1; ++b) {
      double s = 0.0;
      const std::int64_t end = std::min(n, (b + 1) * kBlock);
      for (std::int64_t i = b * kBlock; i < end; ++i) s += static_cast<double>(grads[i]) * grads[i];
      partial[b] = s;
    }
  });
  double total = 0.0;
  for (double s : partial) total += s;
  return std::sqrt(total);
}

void scale_to_max_norm(std::span<float> grads, double norm, double max_norm) {
  if (max_norm <= 0.0) return;
  const double coef = max_norm / (norm + 1e-6);
  if (coef >= 1.0) return;
  const auto scale = static_cast<float>(coef);
  parallel_blocks(static_cast<std::int64_t>(grads.size()), kBlock, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) grads[i] *= scale;
  });
}

double clip_grad_norm(std::span<float> grads, double max_norm) {
  const double norm = global_grad_norm(grads);
  scale_to_max_norm(grads, norm, max_norm);
  return norm;
}

}  // namespace shmtrain
