#include "shmtrain/tensor/softmax.hpp"

#include <array>
#include <cmath>

#include "vector_math.hpp"

namespace shmtrain::tensor {
namespace {

void forward_row_scalar(float* p, const float* s, const float* mask_add, std::int64_t cols) {
  float max_value = -INFINITY;
  for (std::int64_t c = 0; c < cols; ++c) {
    const float v = mask_add != nullptr ? s[c] + mask_add[c] : s[c];
    p[c] = v;
    max_value = v > max_value ? v : max_value;
  }
  float sum = 0.0f;
  for (std::int64_t c = 0; c < cols; ++c) {
    p[c] = std::exp(p[c] - max_value);
    sum += p[c];
  }
  const float inv = 1.0f / sum;
  for (std::int64_t c = 0; c < cols; ++c) p[c] *= inv;
}

// Horizontal max and sum through memory: GCC 12 warns (falsely) inside the
// _mm512_reduce_* intrinsics.
__attribute__((target("avx512f"))) float lanes_max(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float m = lanes[0];
  for (int j = 1; j < 16; ++j) m = lanes[j] > m ? lanes[j] : m;
  return m;
}

__attribute__((target("avx512f"))) float lanes_sum(__m512 v) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float s = 0.0f;
  for (int j = 0; j < 16; ++j) s += lanes[j];
  return s;
}

// The same three passes, 16 columns at a time (the sum in 16 lanes, then across them).
__attribute__((target("avx512f"))) void forward_row_avx512(float* p, const float* s, const float* mask_add,
                                                           std::int64_t cols) {
  __m512 max16 = _mm512_set1_ps(-INFINITY);
  for (std::int64_t c = 0; c < cols; c += 16) {
    const __mmask16 m = vector_math::tail_mask(cols - c);
    __m512 v = _mm512_maskz_loadu_ps(m, s + c);
    if (mask_add != nullptr) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, mask_add + c));
    _mm512_mask_storeu_ps(p + c, m, v);
    max16 = _mm512_mask_max_ps(max16, m, max16, v);
  }
  const __m512 max_value = _mm512_set1_ps(lanes_max(max16));
  __m512 sum16 = _mm512_setzero_ps();
  for (std::int64_t c = 0; c < cols; c += 16) {
    const __mmask16 m = vector_math::tail_mask(cols - c);
    const __m512 e = vector_math::exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, p + c), max_value));
    _mm512_mask_storeu_ps(p + c, m, e);
    sum16 = _mm512_add_ps(sum16, _mm512_maskz_mov_ps(m, e));
  }
  const __m512 inv = _mm512_set1_ps(1.0f / lanes_sum(sum16));
  for (std::int64_t c = 0; c < cols; c += 16) {
    const __mmask16 m = vector_math::tail_mask(cols - c);
    _mm512_mask_storeu_ps(p + c, m, _mm512_mul_ps(_mm512_maskz_loadu_ps(m, p + c), inv));
  }
}

}  // namespace

void softmax_forward(float* probs, const float* scores, const float* mask_add, std::int64_t rows,
                     std::int64_t cols) {
  const bool vector = vector_math::have_avx512();
  for (std::int64_t r = 0; r < rows; ++r) {
    if (vector) {
      forward_row_avx512(probs + r * cols, scores + r * cols, mask_add, cols);
    } else {
      forward_row_scalar(probs + r * cols, scores + r * cols, mask_add, cols);
    }
  }
}

void softmax_backward(float* dscores, const float* dprobs, const float* probs, std::int64_t rows,
                      std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* dp = dprobs + r * cols;
    const float* p = probs + r * cols;
    // The dot product in 16 independent lanes (vectorised; one running sum is a serial chain).
    std::array<float, 16> lanes{};
    std::int64_t c = 0;
    for (; c + 16 <= cols; c += 16) {
      for (std::int64_t j = 0; j < 16; ++j) lanes[static_cast<std::size_t>(j)] += dp[c + j] * p[c + j];
    }
    float dot = 0.0f;
    for (float lane : lanes) dot += lane;
    for (; c < cols; ++c) dot += dp[c] * p[c];
    float* ds = dscores + r * cols;
    for (c = 0; c < cols; ++c) ds[c] = p[c] * (dp[c] - dot);
  }
}

}  // namespace shmtrain::tensor
