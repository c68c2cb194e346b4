#include "shmtrain/tensor/dropout.hpp"

#include <immintrin.h>

#include <algorithm>
#include <array>

#include "shmtrain/tensor/parallel.hpp"
#include "vector_math.hpp"

namespace shmtrain::tensor {
namespace {

// SplitMix64 (Steele, Lea, Flood 2014): the finaliser applied to key + j * golden gamma is
// exactly the generator's j-th output from state `key`, which passes BigCrush. One output
// serves two elements: element 2j draws bits 8..31 of output j, element 2j + 1 bits 40..63,
// so each element compares a 24-bit uniform with p (as torch's float uniforms carry 24 bits).
constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15ull;
constexpr std::uint64_t kMul1 = 0xbf58476d1ce4e5b9ull;
constexpr std::uint64_t kMul2 = 0x94d049bb133111ebull;
constexpr std::int64_t kWordBits = 16;
constexpr std::int64_t kBlockWords = 512;  // mask words (of 16 elements) per parallel block at most

inline std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * kMul1;
  z = (z ^ (z >> 27)) * kMul2;
  return z ^ (z >> 31);
}

// Dropped when the 24-bit draw, as a fraction of 2^24, falls below p.
inline std::uint32_t threshold(float p) { return static_cast<std::uint32_t>(static_cast<double>(p) * (1u << 24)); }

inline bool keep(std::uint64_t key, std::uint64_t index, std::uint32_t limit) {
  const std::uint64_t z = mix(key + (index >> 1) * kGamma);
  const auto half = static_cast<std::uint32_t>((index & 1u) != 0 ? z >> 32 : z);
  return (half >> 8) >= limit;
}

inline std::uint16_t tail_bits(std::int64_t count) {
  return count >= kWordBits ? std::uint16_t{0xffff} : static_cast<std::uint16_t>((1u << count) - 1u);
}

void mask_scalar(std::uint16_t* mask, std::int64_t n, std::uint32_t limit, std::uint64_t key, std::uint64_t offset) {
  for (std::int64_t w = 0; w * kWordBits < n; ++w) {
    std::uint16_t bits = 0;
    const std::int64_t count = std::min(kWordBits, n - w * kWordBits);
    for (std::int64_t b = 0; b < count; ++b) {
      const auto index = offset + static_cast<std::uint64_t>(w * kWordBits + b);
      if (keep(key, index, limit)) bits = static_cast<std::uint16_t>(bits | (1u << b));
    }
    mask[w] = bits;
  }
}

// 16 elements per step from 8 SplitMix64 outputs: read as 16 32-bit lanes, lane k is the half
// that element offset + k draws from (offset even), so one compare gives the mask word. The
// shifts are the all-lanes maskz forms: GCC 12 warns (falsely) inside the plain ones.
__attribute__((target("avx512f,avx512dq"))) void mask_avx512(std::uint16_t* mask, std::int64_t n,
                                                              std::uint32_t limit, std::uint64_t key,
                                                              std::uint64_t offset) {
  alignas(64) std::array<std::uint64_t, 8> start{};
  for (std::uint64_t j = 0; j < 8; ++j) start[j] = key + (offset / 2 + j) * kGamma;
  __m512i counter = _mm512_load_si512(start.data());
  const __m512i step = _mm512_set1_epi64(static_cast<long long>(8 * kGamma));
  const __m512i mul1 = _mm512_set1_epi64(static_cast<long long>(kMul1));
  const __m512i mul2 = _mm512_set1_epi64(static_cast<long long>(kMul2));
  const __m512i lim = _mm512_set1_epi32(static_cast<int>(limit));
  for (std::int64_t w = 0; w * kWordBits < n; ++w) {
    __m512i z = counter;
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_maskz_srli_epi64(0xff, z, 30)), mul1);
    z = _mm512_mullo_epi64(_mm512_xor_si512(z, _mm512_maskz_srli_epi64(0xff, z, 27)), mul2);
    z = _mm512_xor_si512(z, _mm512_maskz_srli_epi64(0xff, z, 31));
    const __mmask16 kept = _mm512_cmpge_epu32_mask(_mm512_maskz_srli_epi32(0xffff, z, 8), lim);
    mask[w] = static_cast<std::uint16_t>(kept & tail_bits(n - w * kWordBits));
    counter = _mm512_add_epi64(counter, step);
  }
}

void apply_scalar(float* out, const float* in, std::int64_t n, float scale, const std::uint16_t* mask) {
  for (std::int64_t i = 0; i < n; ++i) {
    out[i] = ((mask[i / kWordBits] >> (i % kWordBits)) & 1u) != 0 ? in[i] * scale : 0.0f;
  }
}

__attribute__((target("avx512f"))) void apply_avx512(float* out, const float* in, std::int64_t n, float scale,
                                                     const std::uint16_t* mask) {
  const __m512 s = _mm512_set1_ps(scale);
  for (std::int64_t i = 0; i < n; i += kWordBits) {
    const __mmask16 tail = vector_math::tail_mask(n - i);
    const __mmask16 kept = static_cast<__mmask16>(mask[i / kWordBits] & tail);
    _mm512_mask_storeu_ps(out + i, tail, _mm512_maskz_mul_ps(kept, _mm512_maskz_loadu_ps(kept, in + i), s));
  }
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16"))) void apply_avx512_bf16(
    bf16* out, const float* in, std::int64_t n, float scale, const std::uint16_t* mask) {
  const __m512 s = _mm512_set1_ps(scale);
  for (std::int64_t i = 0; i < n; i += kWordBits) {
    const __mmask16 tail = vector_math::tail_mask(n - i);
    const __mmask16 kept = static_cast<__mmask16>(mask[i / kWordBits] & tail);
    const __m256bh v = _mm512_cvtneps_pbh(_mm512_maskz_mul_ps(kept, _mm512_maskz_loadu_ps(kept, in + i), s));
    _mm256_mask_storeu_epi16(out + i, tail, reinterpret_cast<const __m256i&>(v));
  }
}

float keep_scale(float p) { return 1.0f / (1.0f - p); }

// body(i0, i1) over the compute threads on element ranges that start on a mask word, so that
// no two blocks share one.
template <typename Body>
void for_word_blocks(std::int64_t n, const Body& body) {
  parallel_blocks(dropout_mask_words(n), kBlockWords, [&](std::int64_t w0, std::int64_t w1) {
    body(w0 * kWordBits, std::min(n, w1 * kWordBits));
  });
}

}  // namespace

DropoutKey dropout_key(std::uint64_t seed, std::uint64_t rank, std::uint64_t step, std::uint64_t site) {
  return {mix(mix(mix(mix(seed) ^ rank) ^ step) ^ site)};
}

bool dropout_keep(DropoutKey key, std::uint64_t index, float p) { return keep(key.value, index, threshold(p)); }

std::int64_t dropout_mask_words(std::int64_t n) { return (n + kWordBits - 1) / kWordBits; }

void dropout_mask_serial(std::uint16_t* mask, std::int64_t n, float p, DropoutKey key, std::uint64_t offset) {
  if (offset % kWordBits == 0 && vector_math::have_avx512()) {
    mask_avx512(mask, n, threshold(p), key.value, offset);
  } else {
    mask_scalar(mask, n, threshold(p), key.value, offset);
  }
}

void apply_dropout_mask_serial(float* out, const float* in, std::int64_t n, float p, const std::uint16_t* mask) {
  if (p == 0.0f) {
    if (out != in) std::copy_n(in, n, out);
  } else if (vector_math::have_avx512()) {
    apply_avx512(out, in, n, keep_scale(p), mask);
  } else {
    apply_scalar(out, in, n, keep_scale(p), mask);
  }
}

void apply_dropout_mask_serial(bf16* out, const float* in, std::int64_t n, float p, const std::uint16_t* mask) {
  if (p == 0.0f) {
    convert_to_bf16_serial(out, in, n);
  } else if (vector_math::have_avx512_bf16()) {
    apply_avx512_bf16(out, in, n, keep_scale(p), mask);
  } else {
    const float scale = keep_scale(p);
    for (std::int64_t i = 0; i < n; ++i) {
      out[i] = to_bf16(((mask[i / kWordBits] >> (i % kWordBits)) & 1u) != 0 ? in[i] * scale : 0.0f);
    }
  }
}

void dropout_forward(float* out, const float* inp, std::int64_t n, float p, DropoutKey key, std::uint64_t offset,
                     std::uint16_t* mask) {
  if (p == 0.0f) {
    if (out != inp) std::copy_n(inp, n, out);
    return;
  }
  for_word_blocks(n, [&](std::int64_t i0, std::int64_t i1) {
    std::array<std::uint16_t, kBlockWords> local{};
    std::uint16_t* words = mask != nullptr ? mask + i0 / kWordBits : local.data();
    dropout_mask_serial(words, i1 - i0, p, key, offset + static_cast<std::uint64_t>(i0));
    apply_dropout_mask_serial(out + i0, inp + i0, i1 - i0, p, words);
  });
}

void dropout_backward(float* dinp, const float* dout, std::int64_t n, float p, const std::uint16_t* mask) {
  if (p == 0.0f) {
    if (dinp != dout) std::copy_n(dout, n, dinp);
    return;
  }
  for_word_blocks(n, [&](std::int64_t i0, std::int64_t i1) {
    apply_dropout_mask_serial(dinp + i0, dout + i0, i1 - i0, p, mask + i0 / kWordBits);
  });
}

void dropout_backward(bf16* dinp, const float* dout, std::int64_t n, float p, const std::uint16_t* mask) {
  if (p == 0.0f) {
    convert_to_bf16(dinp, dout, n);
    return;
  }
  for_word_blocks(n, [&](std::int64_t i0, std::int64_t i1) {
    apply_dropout_mask_serial(dinp + i0, dout + i0, i1 - i0, p, mask + i0 / kWordBits);
  });
}

void dropout_backward(float* dinp, const float* dout, std::int64_t n, float p, DropoutKey key,
                      std::uint64_t offset) {
  dropout_forward(dinp, dout, n, p, key, offset);
}

}  // namespace shmtrain::tensor
