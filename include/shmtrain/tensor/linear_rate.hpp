#pragma once
// The machine's rate on a model's own linear layers: each shape's forward and both backward
// products (tensor/linear.hpp, the calls training makes, so the same GEMM back ends and the same
// transposes), timed on this process's threads. The limit a training step's useful GFLOP/s is
// compared with.
#include <cstdint>
#include <span>

namespace shmtrain::tensor {

// torch.nn.Linear(in_features, out_features) applied to `rows` rows.
struct LinearShape {
  std::int64_t rows, in_features, out_features;
  // Multiply-adds x 2 of its forward and its two backward products.
  double train_flops() const {
    return 3.0 * 2.0 * static_cast<double>(rows) * static_cast<double>(in_features) *
           static_cast<double>(out_features);
  }
};

// GFLOP/s of the fastest of `passes` passes over every shape (forward, input gradient, weight
// gradient), after one untimed pass. bf16: the products of --bf16 (bf16 operands, float
// accumulation).
double linear_rate_gflops(std::span<const LinearShape> shapes, bool bf16, int passes);

// The passes that make about `flops` floating-point operations, at least 3 and at most 100
// (a tiny model's shapes time mostly overhead, not worth a longer wait); the same count on
// every worker, so that workers timed together stop together.
int passes_for(std::span<const LinearShape> shapes, double flops);

}  // namespace shmtrain::tensor
