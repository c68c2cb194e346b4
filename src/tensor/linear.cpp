#include "shmtrain/tensor/linear.hpp"

#include <algorithm>

#include "shmtrain/tensor/gemm.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"
#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain::tensor {

void linear_forward(float* out, const float* inp, const float* weight, const float* bias, std::int64_t n,
                    std::int64_t in_channels, std::int64_t out_channels) {
  float beta = 0.0f;
  if (bias != nullptr) {
    parallel_blocks(n, 64, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t r = r0; r < r1; ++r) std::copy_n(bias, out_channels, out + r * out_channels);
    });
    beta = 1.0f;
  }
  gemm(Trans::kNo, Trans::kYes, n, out_channels, in_channels, 1.0f, inp, in_channels, weight, in_channels, beta,
       out, out_channels);
}

void linear_backward(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                     const float* weight, std::int64_t n, std::int64_t in_channels, std::int64_t out_channels) {
  if (dinp != nullptr) {
    gemm(Trans::kNo, Trans::kNo, n, in_channels, out_channels, 1.0f, dout, out_channels, weight, in_channels, 0.0f,
         dinp, in_channels);
  }
  gemm(Trans::kYes, Trans::kNo, out_channels, in_channels, n, 1.0f, dout, out_channels, inp, in_channels, 1.0f,
       dweight, in_channels);
  if (dbias != nullptr) accumulate_column_sums(dbias, dout, n, out_channels);
}

void linear_forward(float* out, const bf16* inp, const bf16* weight, const float* bias, std::int64_t n,
                    std::int64_t in_channels, std::int64_t out_channels) {
  gemm_bf16(Trans::kNo, Trans::kYes, n, out_channels, in_channels, 1.0f, inp, in_channels, weight, in_channels, 0.0f,
            out, out_channels, bias);
}

void linear_forward(bf16* out, const bf16* inp, const bf16* weight, const float* bias, std::int64_t n,
                    std::int64_t in_channels, std::int64_t out_channels) {
  gemm_bf16(Trans::kNo, Trans::kYes, n, out_channels, in_channels, inp, in_channels, weight, in_channels, out,
            out_channels, bias);
}

namespace {

void weight_and_bias_grads(float* dweight, float* dbias, const bf16* dout, const bf16* inp, std::int64_t n,
                           std::int64_t in_channels, std::int64_t out_channels) {
  gemm_bf16(Trans::kYes, Trans::kNo, out_channels, in_channels, n, 1.0f, dout, out_channels, inp, in_channels, 1.0f,
            dweight, in_channels);
  if (dbias != nullptr) accumulate_column_sums(dbias, dout, n, out_channels);
}

}  // namespace

void linear_backward(float* dinp, float* dweight, float* dbias, const bf16* dout, const bf16* inp, const bf16* weight,
                     std::int64_t n, std::int64_t in_channels, std::int64_t out_channels) {
  if (dinp != nullptr) {
    gemm_bf16(Trans::kNo, Trans::kNo, n, in_channels, out_channels, 1.0f, dout, out_channels, weight, in_channels,
              0.0f, dinp, in_channels);
  }
  weight_and_bias_grads(dweight, dbias, dout, inp, n, in_channels, out_channels);
}

void linear_backward(bf16* dinp, float* dweight, float* dbias, const bf16* dout, const bf16* inp, const bf16* weight,
                     std::int64_t n, std::int64_t in_channels, std::int64_t out_channels) {
  gemm_bf16(Trans::kNo, Trans::kNo, n, in_channels, out_channels, dout, out_channels, weight, in_channels, dinp,
            in_channels);
  weight_and_bias_grads(dweight, dbias, dout, inp, n, in_channels, out_channels);
}

}  // namespace shmtrain::tensor
