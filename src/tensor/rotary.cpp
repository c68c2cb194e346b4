#include "shmtrain/tensor/rotary.hpp"

#include <cmath>
#include <string>

#include "element_math.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain::tensor {
namespace {

// direction +1 rotates by the angle, -1 back.
template <typename T>
void rotate(T* qkv, const std::int32_t* positions, std::int64_t n, std::int64_t heads, const RotaryTable& table,
            float direction) {
  const std::int64_t d = table.head_dim();
  const std::int64_t half = d / 2;
  const std::int64_t hidden = heads * d;
  for (std::int64_t t = 0; t < n; ++t) {
    if (positions[t] < 0 || positions[t] >= table.positions()) {
      throw Error("rotary: position " + std::to_string(positions[t]) + " is beyond the table's " +
                  std::to_string(table.positions()));
    }
  }
  parallel_blocks(n, 64, [&](std::int64_t t0, std::int64_t t1) {
    for (std::int64_t t = t0; t < t1; ++t) {
      const std::int32_t p = positions[t];
      const float* cos = table.cos(p);
      const float* sin = table.sin(p);
      for (std::int64_t head = 0; head < 2 * heads; ++head) {  // Q's heads, then K's
        T* x = qkv + t * 3 * hidden + head * d;
        for (std::int64_t c = 0; c < half; ++c) {
          const float a = as_float(x[c]);
          const float b = as_float(x[c + half]);
          const float s = direction * sin[c];
          store(x + c, a * cos[c] - b * s);
          store(x + c + half, b * cos[c] + a * s);
        }
      }
    }
  });
}

}  // namespace

RotaryTable::RotaryTable(double theta, std::int64_t head_dim, std::int64_t positions)
    : head_dim_(head_dim), positions_(positions) {
  if (head_dim <= 0 || head_dim % 2 != 0) throw Error("rotary: head_dim must be even and positive");
  const std::int64_t half = head_dim / 2;
  cos_.resize(static_cast<std::size_t>(positions * half));
  sin_.resize(cos_.size());
  // As transformers: inv_freq = 1 / base ** (arange(0, d, 2).float() / d) in float32, then
  // position * inv_freq rounded to float32 before cos and sin.
  std::vector<float> inv_freq(static_cast<std::size_t>(half));
  const auto base = static_cast<float>(theta);
  for (std::int64_t c = 0; c < half; ++c) {
    const float exponent = static_cast<float>(2 * c) / static_cast<float>(head_dim);
    inv_freq[static_cast<std::size_t>(c)] = 1.0f / std::pow(base, exponent);
  }
  for (std::int64_t p = 0; p < positions; ++p) {
    for (std::int64_t c = 0; c < half; ++c) {
      const float angle = static_cast<float>(p) * inv_freq[static_cast<std::size_t>(c)];
      cos_[static_cast<std::size_t>(p * half + c)] = std::cos(angle);
      sin_[static_cast<std::size_t>(p * half + c)] = std::sin(angle);
    }
  }
}

void rotary_forward(float* qkv, const std::int32_t* positions, std::int64_t n, std::int64_t heads,
                    const RotaryTable& table) {
  rotate(qkv, positions, n, heads, table, 1.0f);
}
void rotary_forward(bf16* qkv, const std::int32_t* positions, std::int64_t n, std::int64_t heads,
                    const RotaryTable& table) {
  rotate(qkv, positions, n, heads, table, 1.0f);
}
void rotary_backward(float* dqkv, const std::int32_t* positions, std::int64_t n, std::int64_t heads,
                     const RotaryTable& table) {
  rotate(dqkv, positions, n, heads, table, -1.0f);
}
void rotary_backward(bf16* dqkv, const std::int32_t* positions, std::int64_t n, std::int64_t heads,
                     const RotaryTable& table) {
  rotate(dqkv, positions, n, heads, table, -1.0f);
}

}  // namespace shmtrain::tensor
