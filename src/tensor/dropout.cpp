#include "shmtrain/tensor/dropout.hpp"

#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain {
namespace {

// SplitMix64 (Steele, Lea, Flood 2014): the finaliser applied to key + i * golden gamma is
// exactly the generator's i-th output from state `key`, which passes BigCrush. One round per
// element, no branches: the loop vectorises (AVX-512DQ has the 64-bit multiply).
constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15ull;
inline std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Drop when the top 24 bits, as a fraction of 2^24, fall below p.
inline std::uint32_t threshold(float p) { return static_cast<std::uint32_t>(static_cast<double>(p) * (1u << 24)); }

inline bool keep(std::uint64_t key, std::uint64_t index, std::uint32_t limit) {
  return static_cast<std::uint32_t>(mix(key + index * kGamma) >> 40) >= limit;
}

void apply(float* out, const float* inp, std::int64_t n, float p, DropoutKey key, std::uint64_t offset) {
  if (p == 0.0f) {
    if (out != inp) std::copy_n(inp, n, out);
    return;
  }
  const float scale = 1.0f / (1.0f - p);
  const std::uint32_t limit = threshold(p);
  parallel_blocks(n, 8192, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) {
      const float factor = keep(key.value, offset + static_cast<std::uint64_t>(i), limit) ? scale : 0.0f;
      out[i] = inp[i] * factor;
    }
  });
}

}  // namespace

DropoutKey dropout_key(std::uint64_t seed, std::uint64_t rank, std::uint64_t step, std::uint64_t site) {
  return {mix(mix(mix(mix(seed) ^ rank) ^ step) ^ site)};
}

bool dropout_keep(DropoutKey key, std::uint64_t index, float p) { return keep(key.value, index, threshold(p)); }

void dropout_forward(float* out, const float* inp, std::int64_t n, float p, DropoutKey key, std::uint64_t offset) {
  apply(out, inp, n, p, key, offset);
}

void dropout_backward(float* dinp, const float* dout, std::int64_t n, float p, DropoutKey key,
                      std::uint64_t offset) {
  apply(dinp, dout, n, p, key, offset);
}

}  // namespace shmtrain
