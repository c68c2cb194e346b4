// --balance_tokens' deal of a global micro-batch, worked by hand.
#include "shmtrain/data/token_balance.hpp"

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data {
namespace {

using Rows = std::vector<std::int64_t>;

// Rows 0..5 of lengths 10 90 20 80 30 40. Longest first: 1 (90) to worker 0, 3 (80) to 1,
// 5 (40) to 1 (80 < 90), 4 (30) to 0 (90 < 120), 2 (20) to 0 (120 = 120, the lower rank),
// 0 (10) to 1 (worker 0 is full): 90 + 30 + 20 = 140 and 80 + 40 + 10 = 130 tokens, where the
// sampler's deal (0 2 4 | 1 3 5) gives 60 and 210.
TEST(TokenBalance, DealsTheLongestRowsFirstToTheLightestWorker) {
  const Rows lengths = {10, 90, 20, 80, 30, 40};
  const auto dealt = balance_tokens({0, 1, 2, 3, 4, 5}, lengths, {3, 3});
  EXPECT_EQ(dealt, (std::vector<Rows>{{1, 4, 2}, {3, 5, 0}}));
}

TEST(TokenBalance, KeepsEachWorkersCountAndEveryRow) {
  const Rows lengths = {5, 5, 5, 100, 1, 1, 1};
  const auto dealt = balance_tokens({3, 0, 1, 2, 4, 5, 6}, lengths, {1, 3, 3});
  ASSERT_EQ(dealt.size(), 3u);
  EXPECT_EQ(dealt[0], (Rows{3}));  // the long row fills worker 0's one place
  EXPECT_EQ(dealt[1].size(), 3u);
  EXPECT_EQ(dealt[2].size(), 3u);
  // Ties keep the given order and go to the lower rank: 0 to 1, 1 to 2, 2 to 1 (5 = 5); the
  // ones to worker 2 (5 < 10) until it is full, the last to worker 1.
  EXPECT_EQ(dealt[1], (Rows{0, 2, 6}));
  EXPECT_EQ(dealt[2], (Rows{1, 4, 5}));
  EXPECT_THROW(balance_tokens({0, 1}, lengths, {1}), Error);
  EXPECT_THROW(balance_tokens({0, 9}, lengths, {1, 1}), Error);
}

}  // namespace
}  // namespace shmtrain::data
