// DistributedSampler (torch/utils/data/distributed.py), drop_last=false, with a permutation
// of our own so the order is the same on every platform.
#include "shmtrain/data/sampler.hpp"

#include <algorithm>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "split_mix.hpp"

namespace shmtrain::data {
namespace {

void check_shard(int rank, int world_size, const char* caller) {
  if (world_size < 1 || rank < 0 || rank >= world_size) {
    throw Error(
        fmt::format("{}: rank {} world_size {}: need 0 <= rank < world_size", caller, rank, world_size));
  }
}

// DistributedSampler's shard of `order`, padded by repeating from the start to a multiple of
// world_size: rank r takes positions r, r + world_size, ...
std::vector<std::int64_t> shard(const std::vector<std::int64_t>& order, int rank, int world_size) {
  const auto n = static_cast<std::int64_t>(order.size());
  if (n == 0) return {};
  const std::int64_t per_rank = (n + world_size - 1) / world_size;
  std::vector<std::int64_t> mine;
  mine.reserve(static_cast<std::size_t>(per_rank));
  // Position p of the padded list is order[p mod n]: padding repeats from the start.
  for (std::int64_t k = 0; k < per_rank; ++k) {
    const std::int64_t position = rank + k * world_size;
    mine.push_back(order[static_cast<std::size_t>(position % n)]);
  }
  return mine;
}

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
  if (dataset_size < 0) throw Error(fmt::format("epoch_indices: dataset_size {} is negative", dataset_size));
  check_shard(rank, world_size, "epoch_indices");
  std::vector<std::int64_t> order;
  if (shuffle) {
    order = random_permutation(dataset_size, seed + static_cast<std::uint64_t>(epoch));
  } else {
    order.resize(static_cast<std::size_t>(dataset_size));
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::int64_t>(i);
  }
  return shard(order, rank, world_size);
}

std::vector<std::int64_t> length_grouped_indices(const std::vector<std::int64_t>& lengths,
                                                 std::int64_t batch_size, std::uint64_t seed,
                                                 std::int64_t epoch, int rank, int world_size) {
  if (batch_size < 1)
    throw Error(fmt::format("length_grouped_indices: batch_size {} is below 1", batch_size));
  check_shard(rank, world_size, "length_grouped_indices");
  const auto n = static_cast<std::int64_t>(lengths.size());
  std::vector<std::int64_t> order = random_permutation(n, seed + static_cast<std::uint64_t>(epoch));
  const std::int64_t mega_batch =
      std::max<std::int64_t>(1, std::min<std::int64_t>(n / (4 * batch_size), 50)) * batch_size;
  std::int64_t longest_mega_batch = 0;
  for (std::int64_t first = 0; first < n; first += mega_batch) {
    const auto begin = order.begin() + first;
    const auto end = order.begin() + std::min(n, first + mega_batch);
    std::stable_sort(begin, end, [&](std::int64_t a, std::int64_t b) {
      return lengths[static_cast<std::size_t>(a)] > lengths[static_cast<std::size_t>(b)];
    });
    // The first mega-batch whose head is the longest (argmax takes the first of equals).
    if (lengths[static_cast<std::size_t>(*begin)] >
        lengths[static_cast<std::size_t>(order[static_cast<std::size_t>(longest_mega_batch)])]) {
      longest_mega_batch = first;
    }
  }
  if (n > 0) std::swap(order[0], order[static_cast<std::size_t>(longest_mega_batch)]);
  return shard(order, rank, world_size);
}

std::vector<std::vector<std::int64_t>> no_duplicate_batches(const std::vector<std::vector<std::uint64_t>>& keys,
                                                            const std::vector<std::int64_t>& order,
                                                            std::int64_t batch_size) {
  if (batch_size < 1) throw Error(fmt::format("no_duplicate_batches: batch_size {} is below 1", batch_size));
  for (const std::int64_t row : order) {
    if (row < 0 || static_cast<std::size_t>(row) >= keys.size()) {
      throw Error(fmt::format("no_duplicate_batches: row {} of {} rows", row, keys.size()));
    }
  }
  // The rows not yet taken, in order, as a linked list: a taken row is unlinked in O(1), and a
  // skipped one keeps its place for the next batch's scan.
  const std::size_t n = order.size();
  std::vector<std::size_t> next(n + 1);  // position n is the list's head
  for (std::size_t p = 0; p < n; ++p) next[p] = p + 1 == n ? n : p + 1;
  next[n] = n == 0 ? n : 0;
  std::vector<std::vector<std::int64_t>> batches;
  std::unordered_set<std::uint64_t> texts;
  while (next[n] != n) {
    std::vector<std::int64_t> batch;
    texts.clear();
    std::size_t previous = n;
    for (std::size_t p = next[n]; p != n;) {
      const std::vector<std::uint64_t>& row_keys = keys[static_cast<std::size_t>(order[p])];
      const bool clash = std::any_of(row_keys.begin(), row_keys.end(), [&](std::uint64_t k) { return texts.count(k) > 0; });
      if (clash) {
        previous = p;
        p = next[p];
        continue;
      }
      batch.push_back(order[p]);
      next[previous] = next[p];  // unlink p; `previous` stays the last row kept in the list
      p = next[p];
      if (static_cast<std::int64_t>(batch.size()) == batch_size) break;
      texts.insert(row_keys.begin(), row_keys.end());
    }
    batches.push_back(std::move(batch));
  }
  return batches;
}

}  // namespace shmtrain::data
