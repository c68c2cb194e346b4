#include "shmtrain/model/sentence/normalize.hpp"

#include <algorithm>
#include <cmath>

namespace shmtrain::model::sentence {
namespace {

double row_norm(const float* x, std::int64_t width) {
  double sum = 0.0;
  for (std::int64_t c = 0; c < width; ++c) sum += static_cast<double>(x[c]) * x[c];
  return std::sqrt(sum);
}

}  // namespace

void normalize_rows_forward(float* out, std::int64_t out_stride, const float* in, std::int64_t in_stride,
                            std::int64_t rows, std::int64_t width) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* x = in + r * in_stride;
    float* y = out + r * out_stride;
    const double inv = 1.0 / std::max(row_norm(x, width), static_cast<double>(kNormalizeEps));
    for (std::int64_t c = 0; c < width; ++c) y[c] = static_cast<float>(x[c] * inv);
  }
}

void normalize_rows_backward_add(float* din, std::int64_t din_stride, const float* in, std::int64_t in_stride,
                                 const float* dout, std::int64_t dout_stride, std::int64_t rows, std::int64_t width) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* x = in + r * in_stride;
    const float* dy = dout + r * dout_stride;
    float* dx = din + r * din_stride;
    const double norm = row_norm(x, width);
    if (norm <= kNormalizeEps) {
      // The clamp is constant: the output is x / eps, linear in x.
      for (std::int64_t c = 0; c < width; ++c) dx[c] += static_cast<float>(dy[c] / kNormalizeEps);
      continue;
    }
    double dot = 0.0;
    for (std::int64_t c = 0; c < width; ++c) dot += static_cast<double>(x[c]) * dy[c];
    const double inv = 1.0 / norm;
    const double along = dot * inv * inv;  // (x̂ · dy) / ||x||, times x̂ = x / ||x||
    for (std::int64_t c = 0; c < width; ++c) dx[c] += static_cast<float>((dy[c] - along * x[c]) * inv);
  }
}

}  // namespace shmtrain::model::sentence
