// A batch's real tokens, the ones the FLOP count and mean pooling read: every token of a packed
// row, the unmasked ones of a padded row, all of a padded row that has no mask.
#include "shmtrain/data/batch.hpp"

#include <gtest/gtest.h>

namespace shmtrain::data {
namespace {

TEST(BatchRealTokens, PackedRowsCountWholePaddedRowsTheirMaskedInTokens) {
  Batch packed;
  packed.batch = 3;
  packed.seq = 5;
  packed.offsets = {0, 5, 7, 10};
  packed.input_ids.assign(10, 1);
  EXPECT_EQ(packed.real_length(0), 5);
  EXPECT_EQ(packed.real_length(1), 2);
  EXPECT_EQ(packed.real_length(2), 3);
  EXPECT_EQ(packed.real_tokens(), 10);

  Batch padded;
  padded.batch = 2;
  padded.seq = 4;
  padded.input_ids.assign(8, 1);
  padded.attention_mask = {1, 1, 1, 0, 1, 0, 0, 0};
  EXPECT_EQ(padded.real_length(0), 3);
  EXPECT_EQ(padded.real_length(1), 1);
  EXPECT_EQ(padded.real_tokens(), 4);

  padded.attention_mask.clear();
  EXPECT_EQ(padded.real_length(1), 4);
  EXPECT_EQ(padded.real_tokens(), 8);
}

}  // namespace
}  // namespace shmtrain::data
