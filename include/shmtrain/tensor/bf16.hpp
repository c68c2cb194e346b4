#pragma once
// bfloat16: the top 16 bits of an IEEE float32 (sign, 8-bit exponent, 7-bit mantissa), the
// input type of the mixed-precision GEMMs (--bf16). Conversions round to nearest even, as
// PyTorch's .to(torch.bfloat16) does; the bulk ones use AVX512-BF16 when the CPU has it.
#include <cstdint>
#include <cstring>

namespace shmtrain::tensor {

struct bf16 {
  std::uint16_t bits = 0;
};

inline float to_float(bf16 x) {
  const std::uint32_t u = static_cast<std::uint32_t>(x.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Round to nearest, ties to even; NaN stays a (quiet) NaN.
inline bf16 to_bf16(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return {static_cast<std::uint16_t>((u >> 16) | 0x0040u)};
  u += 0x7fffu + ((u >> 16) & 1u);
  return {static_cast<std::uint16_t>(u >> 16)};
}

// out[i] = to_bf16(in[i]) for i in [0, n), over the compute threads.
void convert_to_bf16(bf16* out, const float* in, std::int64_t n);

// out[i] = to_float(in[i]) for i in [0, n), over the compute threads.
void convert_to_float(float* out, const bf16* in, std::int64_t n);

// The same on the calling thread only (for callers inside a parallel loop).
void convert_to_bf16_serial(bf16* out, const float* in, std::int64_t n);

}  // namespace shmtrain::tensor
