#include "shmtrain/optim/clip.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain::optim {
namespace {

constexpr std::int64_t kBlock = 1 << 16;
constexpr std::int64_t kLanes = 16;

// Sum of squares of [begin, end) in 16 independent double lanes (the compiler vectorises
// them; one running sum would be a serial chain), then the lanes and the tail in order.
double sum_of_squares(const float* g, std::int64_t begin, std::int64_t end) {
  std::array<double, kLanes> lanes{};
  std::int64_t i = begin;
  for (; i + kLanes <= end; i += kLanes) {
    for (std::int64_t j = 0; j < kLanes; ++j) {
      const auto x = static_cast<double>(g[i + j]);
      lanes[static_cast<std::size_t>(j)] += x * x;
    }
  }
  double s = 0.0;
  for (double lane : lanes) s += lane;
  for (; i < end; ++i) s += static_cast<double>(g[i]) * g[i];
  return s;
}

}  // namespace

double global_grad_norm(std::span<const float> grads) {
  const auto n = static_cast<std::int64_t>(grads.size());
  const std::int64_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<double> partial(static_cast<std::size_t>(blocks), 0.0);
  tensor::parallel_blocks(blocks, 1, [&](std::int64_t b0, std::int64_t b1) {
    for (std::int64_t b = b0; b < b1; ++b) {
      partial[static_cast<std::size_t>(b)] = sum_of_squares(grads.data(), b * kBlock, std::min(n, (b + 1) * kBlock));
    }
  });
  double total = 0.0;
  for (double s : partial) total += s;
  return std::sqrt(total);
}

float clip_coefficient(double norm, double max_norm) {
  if (max_norm <= 0.0) return 1.0f;
  const double coef = max_norm / (norm + 1e-6);
  return coef >= 1.0 ? 1.0f : static_cast<float>(coef);
}

}  // namespace shmtrain::optim
