// DistributedSampler semantics over our own deterministic permutation.
#include "shmtrain/data/sampler.hpp"

#include <algorithm>
#include <numeric>

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

}  // namespace
}  // namespace shmtrain::data
