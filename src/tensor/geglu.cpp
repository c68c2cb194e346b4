#include "shmtrain/tensor/geglu.hpp"

#include "element_math.hpp"
#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain::tensor {
namespace {

template <typename Out>
void forward(Out* out, const float* x, std::int64_t n, std::int64_t width) {
  parallel_blocks(n, 16, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const float* input = x + r * 2 * width;
      const float* gate = input + width;
      for (std::int64_t c = 0; c < width; ++c) {
        const float v = input[c];
        store(out + r * width + c, v * gelu_math::cdf(v) * gate[c]);
      }
    }
  });
}

template <typename Out>
void backward(Out* dx, const float* dout, const float* x, std::int64_t n, std::int64_t width) {
  parallel_blocks(n, 16, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const float* input = x + r * 2 * width;
      const float* gate = input + width;
      Out* d_input = dx + r * 2 * width;
      Out* d_gate = d_input + width;
      for (std::int64_t c = 0; c < width; ++c) {
        const float v = input[c];
        const float cdf = gelu_math::cdf(v);
        const float g = dout[r * width + c];
        store(d_input + c, g * gate[c] * (cdf + v * gelu_math::pdf(v)));
        store(d_gate + c, g * v * cdf);
      }
    }
  });
}

}  // namespace

void geglu_forward(float* out, const float* x, std::int64_t n, std::int64_t width) { forward(out, x, n, width); }
void geglu_forward(bf16* out, const float* x, std::int64_t n, std::int64_t width) { forward(out, x, n, width); }
void geglu_backward(float* dx, const float* dout, const float* x, std::int64_t n, std::int64_t width) {
  backward(dx, dout, x, n, width);
}
void geglu_backward(bf16* dx, const float* dout, const float* x, std::int64_t n, std::int64_t width) {
  backward(dx, dout, x, n, width);
}

}  // namespace shmtrain::tensor
