// DistributedSampler semantics over our own deterministic permutation.
#include "shmtrain/data/sampler.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data {
namespace {

using Indices = std::vector<std::int64_t>;

Indices iota(std::int64_t n) {
  Indices out(static_cast<std::size_t>(n));
  std::iota(out.begin(), out.end(), std::int64_t{0});
  return out;
}

TEST(DataSampler, ShuffledOrderIsAPermutation) {
  for (const std::int64_t n : {1, 2, 3, 17, 1000}) {
    Indices order = epoch_indices(n, true, 42, 0, 0, 1);
    ASSERT_EQ(order.size(), static_cast<std::size_t>(n));
    std::sort(order.begin(), order.end());
    EXPECT_EQ(order, iota(n)) << "n = " << n;
  }
}

TEST(DataSampler, DeterministicAndDifferentPerEpochAndSeed) {
  const Indices a = epoch_indices(100, true, 42, 3, 0, 1);
  EXPECT_EQ(a, epoch_indices(100, true, 42, 3, 0, 1));
  EXPECT_NE(a, epoch_indices(100, true, 42, 4, 0, 1));
  EXPECT_NE(a, epoch_indices(100, true, 43, 3, 0, 1));
  EXPECT_NE(a, iota(100));
  // Seeded by seed + epoch, as torch: (42, epoch 3) and (43, epoch 2) are the same order.
  EXPECT_EQ(a, epoch_indices(100, true, 43, 2, 0, 1));
}

TEST(DataSampler, PinnedOrderIsTheSameOnEveryPlatform) {
  // Computed independently (a 15-line Python SplitMix64 + Fisher-Yates with rejection);
  // a change here changes every run's data order.
  EXPECT_EQ(random_permutation(8, 7), (Indices{1, 4, 5, 2, 6, 0, 3, 7}));
  EXPECT_EQ(epoch_indices(10, true, 42, 3, 0, 1), (Indices{3, 4, 7, 2, 0, 1, 9, 8, 5, 6}));
  EXPECT_EQ(epoch_indices(10, true, 42, 3, 1, 4), (Indices{4, 1, 6}));
}

TEST(DataSampler, NoShuffleIsTheIdentity) {
  EXPECT_EQ(epoch_indices(5, false, 42, 9, 0, 1), iota(5));
  EXPECT_EQ(epoch_indices(5, false, 42, 9, 1, 2), (Indices{1, 3, 0}));
}

TEST(DataSampler, RanksPartitionThePaddedList) {
  for (const int world : {1, 2, 3, 4}) {
    for (const std::int64_t n : {1, 2, 5, 10, 11}) {
      const Indices order = epoch_indices(n, true, 1, 2, 0, 1);
      const std::int64_t per_rank = (n + world - 1) / world;
      Indices padded = order;
      for (std::int64_t p = n; p < per_rank * world; ++p)
        padded.push_back(order[static_cast<std::size_t>(p % n)]);
      for (int rank = 0; rank < world; ++rank) {
        const Indices mine = epoch_indices(n, true, 1, 2, rank, world);
        ASSERT_EQ(mine.size(), static_cast<std::size_t>(per_rank)) << "n " << n << " world " << world;
        for (std::int64_t k = 0; k < per_rank; ++k) {
          EXPECT_EQ(mine[static_cast<std::size_t>(k)], padded[static_cast<std::size_t>(rank + k * world)]);
        }
      }
    }
  }
}

// Worked by hand from random_permutation(12, 7) = 10 11 5 | 1 7 4 | 8 2 9 | 6 0 3 (mega-batches
// of min(12 / 4, 50) x 1 = 3): sorted by length, longest first, 10 (12) already leads.
TEST(DataSampler, LengthGroupedOrderSortsEachMegaBatchLongestFirst) {
  const Indices lengths = {5, 9, 1, 7, 3, 9, 2, 6, 4, 8, 12, 3};
  ASSERT_EQ(random_permutation(12, 7), (Indices{10, 11, 5, 1, 7, 4, 8, 2, 9, 6, 0, 3}));
  EXPECT_EQ(length_grouped_indices(lengths, 1, 7, 0, 0, 1), (Indices{10, 5, 11, 1, 7, 4, 9, 8, 2, 3, 0, 6}));
  // Two workers take alternate positions, as DistributedSampler does.
  EXPECT_EQ(length_grouped_indices(lengths, 1, 7, 0, 0, 2), (Indices{10, 11, 7, 9, 2, 0}));
  EXPECT_EQ(length_grouped_indices(lengths, 1, 7, 0, 1, 2), (Indices{5, 1, 4, 8, 3, 6}));
  // The epoch moves the seed: epoch 1 of seed 6 is epoch 0 of seed 7.
  EXPECT_EQ(length_grouped_indices(lengths, 1, 6, 1, 0, 1), length_grouped_indices(lengths, 1, 7, 0, 0, 1));
}

// random_permutation(10, 11) = 1 9 | 8 6 | 7 2 | 0 5 | 4 3 (mega-batches of 2): equal lengths
// keep their order (4 3), and the first mega-batch led by the longest (2, length 5, before
// 4) gives its head to the front: 1 and 2 trade places.
TEST(DataSampler, LengthGroupedOrderIsStableAndPutsTheLongestFirst) {
  const Indices lengths = {3, 3, 5, 5, 5, 1, 1, 2, 2, 2};
  ASSERT_EQ(random_permutation(10, 11), (Indices{1, 9, 8, 6, 7, 2, 0, 5, 4, 3}));
  EXPECT_EQ(length_grouped_indices(lengths, 1, 11, 0, 0, 1), (Indices{2, 9, 8, 6, 1, 7, 0, 5, 4, 3}));
  EXPECT_TRUE(length_grouped_indices({}, 4, 1, 0, 0, 1).empty());
  EXPECT_THROW(length_grouped_indices(lengths, 0, 1, 0, 0, 1), Error);
  EXPECT_THROW(length_grouped_indices(lengths, 1, 1, 0, 2, 2), Error);
}

TEST(DataSampler, EmptyAndInvalidArguments) {
  EXPECT_TRUE(epoch_indices(0, true, 1, 0, 1, 2).empty());
  EXPECT_THROW(epoch_indices(5, true, 1, 0, 2, 2), Error);
  EXPECT_THROW(epoch_indices(5, true, 1, 0, -1, 2), Error);
  EXPECT_THROW(epoch_indices(5, true, 1, 0, 0, 0), Error);
  EXPECT_THROW(epoch_indices(-1, true, 1, 0, 0, 1), Error);
}

// NoDuplicatesBatchSampler.__iter__ as its source writes it: a list of the remaining indices in
// order, each batch scanning it from the start; the batch's rows then removed from the list.
std::vector<Indices> no_duplicates_as_written(const std::vector<std::vector<std::uint64_t>>& keys, Indices remaining,
                                              std::int64_t batch_size) {
  std::vector<Indices> batches;
  while (!remaining.empty()) {
    std::set<std::uint64_t> batch_values;
    Indices batch;
    for (const std::int64_t index : remaining) {
      const auto& values = keys[static_cast<std::size_t>(index)];
      if (std::any_of(values.begin(), values.end(), [&](std::uint64_t v) { return batch_values.count(v) > 0; })) continue;
      batch.push_back(index);
      if (static_cast<std::int64_t>(batch.size()) == batch_size) break;
      batch_values.insert(values.begin(), values.end());
    }
    batches.push_back(batch);
    std::erase_if(remaining, [&](std::int64_t i) { return std::find(batch.begin(), batch.end(), i) != batch.end(); });
  }
  return batches;
}

TEST(NoDuplicateBatches, KeepsTextsApartAsTheSamplerDoes) {
  // Anchors shared by three rows, positives by two, and a row whose negative is its own anchor.
  const std::vector<std::vector<std::uint64_t>> keys = {{1, 10, 20}, {1, 11, 21}, {2, 10, 22}, {3, 12, 3}, {1, 13, 23}};
  const std::vector<Indices> batches = no_duplicate_batches(keys, {0, 1, 2, 3, 4}, 2);
  EXPECT_EQ(batches, (std::vector<Indices>{{0, 3}, {1, 2}, {4}}));
  EXPECT_EQ(no_duplicate_batches(keys, {4, 3, 2, 1, 0}, 3), (std::vector<Indices>{{4, 3, 2}, {1}, {0}}));
  EXPECT_TRUE(no_duplicate_batches(keys, {}, 2).empty());
  EXPECT_THROW(no_duplicate_batches(keys, {0}, 0), Error);
  EXPECT_THROW(no_duplicate_batches(keys, {5}, 2), Error);
}

TEST(NoDuplicateBatches, EqualsTheSamplersLoopOnRandomData) {
  std::mt19937 random(11);
  for (const std::int64_t batch_size : {1, 3, 8, 64}) {
    std::vector<std::vector<std::uint64_t>> keys(500);
    std::uniform_int_distribution<std::uint64_t> text(0, 300);  // many repeated texts
    for (auto& row : keys) row = {text(random), text(random) + 1000, text(random) + 1000};
    const Indices order = random_permutation(500, static_cast<std::uint64_t>(batch_size));
    const std::vector<Indices> batches = no_duplicate_batches(keys, order, batch_size);
    EXPECT_EQ(batches, no_duplicates_as_written(keys, order, batch_size)) << "batch size " << batch_size;
    Indices all;
    for (const Indices& b : batches) {
      ASSERT_LE(static_cast<std::int64_t>(b.size()), batch_size);
      std::set<std::uint64_t> seen;
      for (const std::int64_t row : b) {
        for (const std::uint64_t k : std::set<std::uint64_t>(keys[row].begin(), keys[row].end())) {
          EXPECT_TRUE(seen.insert(k).second) << "text " << k << " twice in a batch";
        }
      }
      all.insert(all.end(), b.begin(), b.end());
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(all, iota(500));
  }
}

}  // namespace
}  // namespace shmtrain::data
