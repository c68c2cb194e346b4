// DistributedSampler (torch/utils/data/distributed.py), drop_last=false, with a permutation
// of our own so the order is the same on every platform.
#include "shmtrain/data/sampler.hpp"

#include <utility>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data {
namespace {

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

}  // namespace

std::vector<std::int64_t> random_permutation(std::int64_t n, std::uint64_t seed) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(n > 0 ? n : 0));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  SplitMix64 rng(seed);
  for (std::size_t i = order.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng.below(i));
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

std::vector<std::int64_t> epoch_indices(std::int64_t dataset_size, bool shuffle, std::uint64_t seed,
                                        std::int64_t epoch, int rank, int world_size) {
  if (dataset_size < 0 || world_size < 1 || rank < 0 || rank >= world_size) {
    throw Error(
        fmt::format("epoch_indices: dataset_size {} rank {} world_size {}: need dataset_size >= 0 and "
                    "0 <= rank < world_size",
                    dataset_size, rank, world_size));
  }
  if (dataset_size == 0) return {};
  std::vector<std::int64_t> order;
  if (shuffle) {
    order = random_permutation(dataset_size, seed + static_cast<std::uint64_t>(epoch));
  } else {
    order.resize(static_cast<std::size_t>(dataset_size));
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  }
  const std::int64_t per_rank = (dataset_size + world_size - 1) / world_size;
  std::vector<std::int64_t> mine;
  mine.reserve(static_cast<std::size_t>(per_rank));
  // Position p of the padded list is order[p mod n]: padding repeats from the start.
  for (std::int64_t k = 0; k < per_rank; ++k) {
    const std::int64_t position = rank + k * world_size;
    mine.push_back(order[static_cast<std::size_t>(position % dataset_size)]);
  }
  return mine;
}

}  // namespace shmtrain::data
