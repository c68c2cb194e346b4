#pragma once
// Internal to data: the one pseudo-random generator of the data path (the sampler's
// permutations, run_mlm's masks), fully specified so every platform gives the same draws.
#include <cstdint>

namespace shmtrain::data {

// SplitMix64 (Steele, Lea, Flood 2014; the constants of Vigna's reference splitmix64.c).
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Uniform in [0, bound), bound >= 1. Draws below 2^64 mod bound are rejected: the rest,
  // [2^64 mod bound, 2^64), is a whole number of copies of [0, bound), so mod has no bias.
  std::uint64_t below(std::uint64_t bound) {
    const std::uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
    for (;;) {
      const std::uint64_t r = next();
      if (r >= threshold) return r % bound;
    }
  }

 private:
  std::uint64_t state_;
};

}  // namespace shmtrain::data
