#include "shmtrain/tensor/attention.hpp"

#include <cmath>
#include <vector>

#include <tbb/enumerable_thread_specific.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/gemm.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"
#include "shmtrain/tensor/parallel.hpp"
#include "shmtrain/tensor/softmax.hpp"

namespace shmtrain {
namespace {

// Per-thread (T, T) scratch matrices, reused across calls.
using Scratch = tbb::enumerable_thread_specific<std::vector<float>>;

float* scratch_of(Scratch& scratch, std::int64_t floats) {
  std::vector<float>& s = scratch.local();
  if (static_cast<std::int64_t>(s.size()) < floats) s.resize(static_cast<std::size_t>(floats));
  return s.data();
}

Scratch& forward_scratch() {
  static Scratch scratch;
  return scratch;
}

Scratch& backward_scratch() {
  static Scratch scratch;
  return scratch;
}

using ScratchBf16 = tbb::enumerable_thread_specific<std::vector<bf16>>;

bf16* scratch_of(ScratchBf16& scratch, std::int64_t count) {
  std::vector<bf16>& s = scratch.local();
  if (static_cast<std::int64_t>(s.size()) < count) s.resize(static_cast<std::size_t>(count));
  return s.data();
}

ScratchBf16& bf16_scratch() {
  static ScratchBf16 scratch;
  return scratch;
}

std::int64_t matrix_mask_words(const AttentionShape& s) { return dropout_mask_words(s.seq * s.seq); }

void check_mask(const AttentionDropout& dropout, const std::uint16_t* mask) {
  if (dropout.p > 0.0f && mask == nullptr) throw Error("attention: dropout is on, but no mask storage was given");
}

// Draws the dropout mask of matrix bh into its place in dropout.mask; null when dropout is off.
const std::uint16_t* draw_matrix_mask(const AttentionShape& s, std::int64_t bh, const AttentionDropout& dropout,
                                      std::uint16_t* masks) {
  if (dropout.p == 0.0f) return nullptr;
  const std::int64_t words = matrix_mask_words(s);
  std::uint16_t* mask = masks + bh * words;
  dropout_mask_serial(mask, s.seq * s.seq, dropout.p, dropout.key, static_cast<std::uint64_t>(bh * words * 16));
  return mask;
}

// The mask the forward recorded for matrix bh; null when dropout is off.
const std::uint16_t* recorded_matrix_mask(const AttentionShape& s, std::int64_t bh, const AttentionDropout& dropout,
                                          const std::uint16_t* masks) {
  return dropout.p == 0.0f ? nullptr : masks + bh * matrix_mask_words(s);
}

}  // namespace

std::int64_t attention_dropout_mask_words(const AttentionShape& shape) {
  return shape.batch * shape.heads * matrix_mask_words(shape);
}

void attention_forward(float* out, float* probs, const float* qkv, const float* mask_add,
                       const AttentionShape& shape, const AttentionDropout& dropout, std::uint16_t* dropout_mask) {
  check_mask(dropout, dropout_mask);
  const std::int64_t t = shape.seq;
  const std::int64_t d = shape.head_dim;
  const std::int64_t h3 = 3 * shape.hidden();
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  parallel_blocks(shape.batch * shape.heads, 1, [&](std::int64_t bh0, std::int64_t bh1) {
    for (std::int64_t bh = bh0; bh < bh1; ++bh) {
      const std::int64_t b = bh / shape.heads;
      const std::int64_t h = bh % shape.heads;
      const float* q = qkv + b * t * h3 + h * d;  // (T, d), row stride 3H
      const float* k = q + shape.hidden();
      const float* v = q + 2 * shape.hidden();
      float* p = probs + bh * t * t;  // (T, T)
      gemm_serial(Trans::kNo, Trans::kYes, t, t, d, scale, q, h3, k, h3, 0.0f, p, t);
      softmax_forward(p, p, mask_add + b * t, t, t);
      const float* p_used = p;
      if (dropout.p > 0.0f) {
        float* p_dropped = scratch_of(forward_scratch(), t * t);
        apply_dropout_mask_serial(p_dropped, p, t * t, dropout.p, draw_matrix_mask(shape, bh, dropout, dropout_mask));
        p_used = p_dropped;
      }
      gemm_serial(Trans::kNo, Trans::kNo, t, d, t, 1.0f, p_used, t, v, h3, 0.0f, out + b * t * shape.hidden() + h * d,
                  shape.hidden());
    }
  });
}

void attention_backward(float* dqkv, const float* dout, const float* qkv, const float* probs,
                        const AttentionShape& shape, const AttentionDropout& dropout, const std::uint16_t* dropout_mask) {
  check_mask(dropout, dropout_mask);
  const std::int64_t t = shape.seq;
  const std::int64_t d = shape.head_dim;
  const std::int64_t hid = shape.hidden();
  const std::int64_t h3 = 3 * hid;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  parallel_blocks(shape.batch * shape.heads, 1, [&](std::int64_t bh0, std::int64_t bh1) {
    for (std::int64_t bh = bh0; bh < bh1; ++bh) {
      const std::int64_t b = bh / shape.heads;
      const std::int64_t h = bh % shape.heads;
      const std::int64_t column = b * t * h3 + h * d;
      const float* q = qkv + column;
      const float* k = q + hid;
      const float* v = q + 2 * hid;
      float* dq = dqkv + column;
      float* dk = dq + hid;
      float* dv = dq + 2 * hid;
      const float* dy = dout + b * t * hid + h * d;  // (T, d), row stride H
      const float* p = probs + bh * t * t;
      float* scratch = scratch_of(backward_scratch(), 2 * t * t);
      float* dp = scratch;  // (T, T)
      const std::uint16_t* mask = recorded_matrix_mask(shape, bh, dropout, dropout_mask);
      const float* p_used = p;
      if (mask != nullptr) {
        float* p_dropped = scratch + t * t;
        apply_dropout_mask_serial(p_dropped, p, t * t, dropout.p, mask);
        p_used = p_dropped;
      }
      gemm_serial(Trans::kNo, Trans::kYes, t, t, d, 1.0f, dy, hid, v, h3, 0.0f, dp, t);          // dP = dY V^T
      gemm_serial(Trans::kYes, Trans::kNo, t, d, t, 1.0f, p_used, t, dy, hid, 0.0f, dv, h3);     // dV = P^T dY
      apply_dropout_mask_serial(dp, dp, t * t, dropout.p, mask);
      softmax_backward(dp, dp, p, t, t);                                                         // dS
      gemm_serial(Trans::kNo, Trans::kNo, t, d, t, scale, dp, t, k, h3, 0.0f, dq, h3);           // dQ = s dS K
      gemm_serial(Trans::kYes, Trans::kNo, t, d, t, scale, dp, t, q, h3, 0.0f, dk, h3);          // dK = s dS^T Q
    }
  });
}

void attention_forward(bf16* out, float* probs, const bf16* qkv, const float* mask_add, const AttentionShape& shape,
                       const AttentionDropout& dropout, std::uint16_t* dropout_mask) {
  check_mask(dropout, dropout_mask);
  const std::int64_t t = shape.seq;
  const std::int64_t d = shape.head_dim;
  const std::int64_t h3 = 3 * shape.hidden();
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  parallel_blocks(shape.batch * shape.heads, 1, [&](std::int64_t bh0, std::int64_t bh1) {
    bf16* p16 = scratch_of(bf16_scratch(), t * t);
    for (std::int64_t bh = bh0; bh < bh1; ++bh) {
      const std::int64_t b = bh / shape.heads;
      const std::int64_t h = bh % shape.heads;
      const bf16* q = qkv + b * t * h3 + h * d;  // (T, d), row stride 3H
      const bf16* k = q + shape.hidden();
      const bf16* v = q + 2 * shape.hidden();
      float* p = probs + bh * t * t;  // (T, T)
      gemm_bf16_serial(Trans::kNo, Trans::kYes, t, t, d, scale, q, h3, k, h3, 0.0f, p, t);
      softmax_forward(p, p, mask_add + b * t, t, t);
      apply_dropout_mask_serial(p16, p, t * t, dropout.p, draw_matrix_mask(shape, bh, dropout, dropout_mask));
      gemm_bf16_serial(Trans::kNo, Trans::kNo, t, d, t, 1.0f, p16, t, v, h3, out + b * t * shape.hidden() + h * d,
                       shape.hidden());
    }
  });
}

void attention_backward(bf16* dqkv, const bf16* dout, const bf16* qkv, const float* probs,
                        const AttentionShape& shape, const AttentionDropout& dropout, const std::uint16_t* dropout_mask) {
  check_mask(dropout, dropout_mask);
  const std::int64_t t = shape.seq;
  const std::int64_t d = shape.head_dim;
  const std::int64_t hid = shape.hidden();
  const std::int64_t h3 = 3 * hid;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  parallel_blocks(shape.batch * shape.heads, 1, [&](std::int64_t bh0, std::int64_t bh1) {
    float* dp = scratch_of(backward_scratch(), t * t);  // (T, T)
    bf16* p16 = scratch_of(bf16_scratch(), t * t);  // dropped probabilities, then dS
    for (std::int64_t bh = bh0; bh < bh1; ++bh) {
      const std::int64_t b = bh / shape.heads;
      const std::int64_t h = bh % shape.heads;
      const std::int64_t column = b * t * h3 + h * d;
      const bf16* q = qkv + column;
      const bf16* k = q + hid;
      const bf16* v = q + 2 * hid;
      bf16* dq = dqkv + column;
      bf16* dk = dq + hid;
      bf16* dv = dq + 2 * hid;
      const bf16* dy = dout + b * t * hid + h * d;  // (T, d), row stride H
      const float* p = probs + bh * t * t;
      const std::uint16_t* mask = recorded_matrix_mask(shape, bh, dropout, dropout_mask);
      apply_dropout_mask_serial(p16, p, t * t, dropout.p, mask);
      gemm_bf16_serial(Trans::kNo, Trans::kYes, t, t, d, 1.0f, dy, hid, v, h3, 0.0f, dp, t);  // dP = dY V^T
      gemm_bf16_serial(Trans::kYes, Trans::kNo, t, d, t, 1.0f, p16, t, dy, hid, dv, h3);       // dV = P^T dY
      apply_dropout_mask_serial(dp, dp, t * t, dropout.p, mask);
      softmax_backward(dp, dp, p, t, t);  // dS
      convert_to_bf16_serial(p16, dp, t * t);
      gemm_bf16_serial(Trans::kNo, Trans::kNo, t, d, t, scale, p16, t, k, h3, dq, h3);   // dQ = s dS K
      gemm_bf16_serial(Trans::kYes, Trans::kNo, t, d, t, scale, p16, t, q, h3, dk, h3);  // dK = s dS^T Q
    }
  });
}

}  // namespace shmtrain
