#include "shmtrain/model/init.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>

#include "architectures/architecture.hpp"

namespace shmtrain::model {
namespace {

// The values must be the same whichever standard library built shmtrain, so nothing here is
// left to it: std::hash and std::normal_distribution (and uniform_real_distribution) are
// implementation-defined and differ between libstdc++ and libc++. std::mt19937_64's output
// for a given seed is fixed by the standard ([rand.predef]); the rest is spelled out.

// FNV-1a, 64 bits (Fowler, Noll, Vo): the parameter name's bytes.
std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t hash = 0xCBF29CE484222325ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001B3ull;
  }
  return hash;
}

// SplitMix64's output function (Steele, Lea, Flood 2014; Vigna's constants), so that nearby
// seeds give unrelated engine states.
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Normal(0, stddev) by Box-Muller over 53-bit uniforms, two values per pair of draws. Only
// products, sqrt (correctly rounded) and libm's log, cos and sin: no a * b + c for a compiler
// to fuse into an FMA or not, so GCC and Clang give the same bits.
class NormalSampler {
 public:
  NormalSampler(std::uint64_t key, double stddev) : engine_(key), stddev_(stddev) {}

  float next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = uniform_open_closed();  // (0, 1]: log(u1) is finite
    const double u2 = uniform_open_closed();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double theta = 2.0 * std::numbers::pi * u2;
    spare_ = static_cast<float>(stddev_ * (radius * std::sin(theta)));
    has_spare_ = true;
    return static_cast<float>(stddev_ * (radius * std::cos(theta)));
  }

 private:
  // The top 53 bits of a draw, k in [0, 2^53), as (k + 1) / 2^53: exact in a double.
  double uniform_open_closed() { return static_cast<double>((engine_() >> 11) + 1) * 0x1.0p-53; }

  std::mt19937_64 engine_;
  double stddev_;
  float spare_ = 0;
  bool has_spare_ = false;
};

}  // namespace

void init_parameter(const ParamEntry& entry, std::span<float> params, const BertConfig& config,
                    std::uint64_t seed) {
  float* p = params.data() + entry.offset;
  const std::string_view name = entry.name;
  if (entry.kind == ParamKind::kNorm) {
    std::fill_n(p, entry.size, name.ends_with("weight") ? 1.0f : 0.0f);
    return;
  }
  if (entry.kind == ParamKind::kBias) {
    std::fill_n(p, entry.size, 0.0f);
    return;
  }
  const Architecture& arch = architecture_of(config);
  if (arch.init_std != nullptr) {
    // trunc_normal_(std, a = -cutoff * std, b = cutoff * std): draws outside are drawn again.
    const double std = arch.init_std(config, name);
    const double bound = config.initializer_cutoff_factor * std;
    NormalSampler normal(mix64(seed) ^ fnv1a64(name), std);
    for (std::int64_t i = 0; i < entry.size; ++i) {
      float v = normal.next();
      while (std::abs(static_cast<double>(v)) > bound) v = normal.next();
      p[i] = v;
    }
  } else {
    NormalSampler normal(mix64(seed) ^ fnv1a64(name), config.initializer_range);
    for (std::int64_t i = 0; i < entry.size; ++i) p[i] = normal.next();
  }
  if (!arch.zero_padding_embedding) return;
  // nn.Embedding(padding_idx=pad_token_id) zeroes that row: the word table's, and RoBERTa's
  // position table's too (its padding_idx is the same).
  const bool padded_positions = arch.structure.positions == PositionEncoding::kLearnedFromIds &&
                                name == config.base_prefix() + "embeddings.position_embeddings.weight";
  if (name == config.base_prefix() + arch.embeddings.word + ".weight" || padded_positions) {
    std::fill_n(p + config.pad_token_id * config.embedding_width(), config.embedding_width(), 0.0f);
  }
}

void init_all_parameters(const ParamTable& table, std::span<float> params, const BertConfig& config,
                         std::uint64_t seed) {
  for (const ParamEntry& e : table.entries()) init_parameter(e, params, config, seed);
}

}  // namespace shmtrain::model
