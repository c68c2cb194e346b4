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

TEST(SliceRows, PackedSliceRebasesItsOffsetsAndKeepsRowIdsAndRowTargets) {
  Batch packed;
  packed.batch = 4;
  packed.seq = 5;
  packed.offsets = {0, 2, 7, 10, 11};
  for (int i = 0; i < 11; ++i) {
    packed.input_ids.push_back(100 + i);
    packed.token_type_ids.push_back(i % 2);
  }
  packed.row_ids = {40, 41, 42, 43};
  packed.targets = {0.5f, 1.5f, 2.5f, 3.5f};
  packed.loss_weight = 0.25f;
  const Batch s = slice_rows(packed, 1, 2);
  EXPECT_EQ(s.batch, 2);
  EXPECT_EQ(s.seq, 5);  // its longest row
  EXPECT_EQ(s.offsets, (std::vector<std::int32_t>{0, 5, 8}));
  EXPECT_EQ(s.input_ids, (std::vector<std::int32_t>{102, 103, 104, 105, 106, 107, 108, 109}));
  EXPECT_EQ(s.token_type_ids.size(), 8u);
  EXPECT_EQ(s.token_type_ids[0], 0);
  EXPECT_EQ(s.row_ids, (std::vector<std::int64_t>{41, 42}));
  EXPECT_EQ(s.targets, (std::vector<float>{1.5f, 2.5f}));
  EXPECT_FLOAT_EQ(s.loss_weight, 0.25f);

  const Batch last = slice_rows(packed, 3, 1);
  EXPECT_EQ(last.seq, 1);
  EXPECT_EQ(last.offsets, (std::vector<std::int32_t>{0, 1}));
  EXPECT_EQ(last.input_ids, (std::vector<std::int32_t>{110}));
}

TEST(SliceRows, PaddedSliceKeepsTheSeqAndTheMasksAndPerRowLabelsOnly) {
  Batch padded;
  padded.batch = 3;
  padded.seq = 3;
  padded.input_ids = {1, 2, 0, 3, 0, 0, 4, 5, 6};
  padded.attention_mask = {1, 1, 0, 1, 0, 0, 1, 1, 1};
  padded.labels = {7, 8, 9};
  const Batch s = slice_rows(padded, 1, 2);
  EXPECT_EQ(s.batch, 2);
  EXPECT_EQ(s.seq, 3);
  EXPECT_FALSE(s.packed());
  EXPECT_EQ(s.input_ids, (std::vector<std::int32_t>{3, 0, 0, 4, 5, 6}));
  EXPECT_EQ(s.attention_mask, (std::vector<std::int32_t>{1, 0, 0, 1, 1, 1}));
  EXPECT_TRUE(s.token_type_ids.empty());
  EXPECT_EQ(s.labels, (std::vector<std::int32_t>{8, 9}));
  EXPECT_TRUE(s.row_ids.empty());

  padded.labels.assign(9, 1);  // token labels: not the slice's
  EXPECT_TRUE(slice_rows(padded, 0, 1).labels.empty());
}

}  // namespace
}  // namespace shmtrain::data
