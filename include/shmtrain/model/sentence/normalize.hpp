#pragma once
// L2 normalisation of rows, as sentence-transformers' Normalize module and util.cos_sim do it
// (torch.nn.functional.normalize(x, p=2, dim=-1): x / max(||x||, 1e-12)).
#include <cstdint>

namespace shmtrain::model::sentence {

inline constexpr float kNormalizeEps = 1e-12f;

// out (rows, width) = in / max(||in_row||, eps); out may alias in. Strides are in floats.
void normalize_rows_forward(float* out, std::int64_t out_stride, const float* in, std::int64_t in_stride,
                            std::int64_t rows, std::int64_t width);

// din (rows, width) += d(normalize)(in)^T dout: (dout - x̂ (x̂ · dout)) / ||in|| (dout / eps where
// the norm was clamped). `in` is the forward's input.
void normalize_rows_backward_add(float* din, std::int64_t din_stride, const float* in, std::int64_t in_stride,
                                 const float* dout, std::int64_t dout_stride, std::int64_t rows, std::int64_t width);

}  // namespace shmtrain::model::sentence
