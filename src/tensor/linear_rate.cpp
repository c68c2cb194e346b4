#include "shmtrain/tensor/linear_rate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <type_traits>
#include <vector>

#include "shmtrain/tensor/bf16.hpp"
#include "shmtrain/tensor/linear.hpp"

namespace shmtrain::tensor {
namespace {

// One shape's operands, filled with small values (no denormals, no overflow in any pass).
template <typename T>
struct Operands {
  std::vector<T> x, w, dy;
  std::vector<float> y, dx, dw;
  explicit Operands(const LinearShape& s) {
    const auto fill = [](std::vector<T>& v, std::int64_t n, float value) {
      if constexpr (std::is_same_v<T, bf16>) {
        v.assign(static_cast<std::size_t>(n), to_bf16(value));
      } else {
        v.assign(static_cast<std::size_t>(n), value);
      }
    };
    fill(x, s.rows * s.in_features, 0.5f);
    fill(w, s.out_features * s.in_features, 0.01f);
    fill(dy, s.rows * s.out_features, 0.25f);
    y.resize(static_cast<std::size_t>(s.rows * s.out_features));
    dx.resize(static_cast<std::size_t>(s.rows * s.in_features));
    dw.assign(static_cast<std::size_t>(s.out_features * s.in_features), 0.0f);
  }
  void run(const LinearShape& s) {
    linear_forward(y.data(), x.data(), w.data(), nullptr, s.rows, s.in_features, s.out_features);
    linear_backward(dx.data(), dw.data(), nullptr, dy.data(), x.data(), w.data(), s.rows, s.in_features,
                    s.out_features);
  }
};

template <typename T>
double rate(std::span<const LinearShape> shapes, int passes) {
  std::vector<Operands<T>> operands;
  double flops = 0;
  for (const LinearShape& s : shapes) {
    operands.emplace_back(s);
    flops += s.train_flops();
  }
  const auto pass = [&] {
    for (std::size_t i = 0; i < shapes.size(); ++i) operands[i].run(shapes[i]);
  };
  pass();  // warm-up: kernels chosen, pages touched
  // The fastest pass: on a shared machine a pass that another process slowed says nothing
  // about what the cores can do.
  double best = 0;
  for (int p = 0; p < passes; ++p) {
    const auto start = std::chrono::steady_clock::now();
    pass();
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds > 0) best = std::max(best, flops / seconds * 1e-9);
  }
  return best;
}

}  // namespace

double linear_rate_gflops(std::span<const LinearShape> shapes, bool bf16, int passes) {
  return bf16 ? rate<tensor::bf16>(shapes, passes) : rate<float>(shapes, passes);
}

int passes_for(std::span<const LinearShape> shapes, double flops) {
  double per_pass = 0;
  for (const LinearShape& s : shapes) per_pass += s.train_flops();
  if (per_pass <= 0) return 1;
  return static_cast<int>(std::clamp(std::ceil(flops / per_pass), 3.0, 100.0));
}

}  // namespace shmtrain::tensor
