// Rows -> a padded or packed Batch.
#include "shmtrain/data/collate.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"
#include "support/test_support.hpp"

namespace shmtrain::data {
namespace {

using Ids = std::vector<std::int32_t>;

Dataset three_rows() {
  Dataset d;
  d.source = "rows.jsonl";
  d.examples = {
      {{2, 5, 3}, {0, 0, 0}, {1, 1, 1}, 1, 0.5f},
      {{2, 5, 6, 3, 7}, {0, 0, 0, 1, 1}, {1, 1, 1, 1, 1}, 0, 1.5f},
      {{2, 3}, {0, 0}, {1, 1}, 2, 2.5f},
  };
  return d;
}

TEST(DataCollate, PadsToTheLongestRowOfTheBatch) {
  const Dataset d = three_rows();
  const std::vector<std::int64_t> indices = {2, 0};
  const data::Batch b = collate(d, indices, 8, Padding::kLongest, 9, Target::kClass);
  EXPECT_EQ(b.batch, 2);
  EXPECT_EQ(b.seq, 3);
  EXPECT_EQ(b.input_ids, (Ids{2, 3, 9, 2, 5, 3}));
  EXPECT_EQ(b.token_type_ids, (Ids{0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(b.attention_mask, (Ids{1, 1, 0, 1, 1, 1}));
  EXPECT_EQ(b.labels, (Ids{2, 1}));
  EXPECT_TRUE(b.targets.empty());
}

TEST(DataCollate, PadsToMaxLengthAndCarriesRegressionTargets) {
  const Dataset d = three_rows();
  const std::vector<std::int64_t> indices = {1};
  const data::Batch b = collate(d, indices, 6, Padding::kMaxLength, 0, Target::kRegression);
  EXPECT_EQ(b.batch, 1);
  EXPECT_EQ(b.seq, 6);
  EXPECT_EQ(b.input_ids, (Ids{2, 5, 6, 3, 7, 0}));
  EXPECT_EQ(b.token_type_ids, (Ids{0, 0, 0, 1, 1, 0}));
  EXPECT_EQ(b.attention_mask, (Ids{1, 1, 1, 1, 1, 0}));
  EXPECT_TRUE(b.labels.empty());
  EXPECT_EQ(b.targets, (std::vector<float>{1.5f}));
}

TEST(DataCollate, CarriesAnswerSpans) {
  Dataset d = three_rows();
  d.examples[0].start_position = 1;
  d.examples[0].end_position = 2;
  const std::vector<std::int64_t> indices = {1, 0};
  const data::Batch b = collate(d, indices, 6, Padding::kMaxLength, 0, Target::kSpan);
  EXPECT_EQ(b.start_positions, (Ids{0, 1}));
  EXPECT_EQ(b.end_positions, (Ids{0, 2}));
  EXPECT_TRUE(b.labels.empty());
  EXPECT_TRUE(b.targets.empty());
}

TEST(DataCollate, PacksRowsEndToEndWithTheirOffsets) {
  const Dataset d = three_rows();
  const std::vector<std::int64_t> indices = {2, 1, 0};
  const data::Batch b = collate(d, indices, 8, Padding::kNone, 9, Target::kClass);
  EXPECT_TRUE(b.packed());
  EXPECT_EQ(b.batch, 3);
  EXPECT_EQ(b.seq, 5);  // the longest row
  EXPECT_EQ(b.offsets, (Ids{0, 2, 7, 10}));
  EXPECT_EQ(b.tokens(), 10);
  EXPECT_EQ(b.input_ids, (Ids{2, 3, 2, 5, 6, 3, 7, 2, 5, 3}));
  EXPECT_EQ(b.token_type_ids, (Ids{0, 0, 0, 0, 0, 1, 1, 0, 0, 0}));
  EXPECT_TRUE(b.attention_mask.empty());
  EXPECT_EQ(b.labels, (Ids{2, 0, 1}));
  EXPECT_EQ(b.row_begin(1), 2);
  EXPECT_EQ(b.row_length(1), 5);
}

TEST(DataCollate, PackingDropsTrailingPaddingAndPadsRowsWithMaskedTokensInside) {
  Dataset d = three_rows();
  d.examples[0] = {{2, 5, 3, 0, 0}, {0, 0, 0, 0, 0}, {1, 1, 1, 0, 0}, 1, 0.5f};  // came padded
  const std::vector<std::int64_t> first_two = {0, 2};
  const data::Batch packed = collate(d, first_two, 8, Padding::kNone, 9, Target::kClass);
  EXPECT_EQ(packed.offsets, (Ids{0, 3, 5}));
  EXPECT_EQ(packed.seq, 3);
  EXPECT_EQ(packed.input_ids, (Ids{2, 5, 3, 2, 3}));
  d.examples[2] = {{0, 2, 3}, {0, 0, 0}, {0, 1, 1}, 2, 2.5f};  // left padding
  const data::Batch padded = collate(d, first_two, 8, Padding::kNone, 9, Target::kClass);
  EXPECT_FALSE(padded.packed());
  EXPECT_EQ(padded.seq, 5);
  EXPECT_EQ(padded.attention_mask, (Ids{1, 1, 1, 0, 0, 0, 1, 1, 0, 0}));
}

TEST(DataCollate, NamesThePaddingStrategies) {
  for (const Padding p : {Padding::kNone, Padding::kLongest, Padding::kMaxLength}) {
    EXPECT_EQ(parse_padding(padding_name(p), "padding"), p);
  }
  EXPECT_EQ(
      shmtrain::testing::error_of([] { parse_padding("do_not_pad", "run.toml: padding"); }),
      "run.toml: padding: 'do_not_pad' is not a padding; use none (packed rows), longest or max_length");
}

TEST(DataCollate, EmptyIndicesAndErrors) {
  const Dataset d = three_rows();
  const data::Batch empty = collate(d, {}, 8, Padding::kNone, 0, Target::kClass);
  EXPECT_EQ(empty.batch, 0);
  EXPECT_TRUE(empty.input_ids.empty());
  const std::vector<std::int64_t> outside = {3};
  EXPECT_EQ(shmtrain::testing::error_of([&] { collate(d, outside, 8, Padding::kNone, 0, Target::kClass); }),
            "rows.jsonl: row index 3 is outside the dataset's 3 rows");
  const std::vector<std::int64_t> long_row = {1};
  EXPECT_EQ(shmtrain::testing::error_of([&] { collate(d, long_row, 4, Padding::kNone, 0, Target::kClass); }),
            "rows.jsonl: row 1 has 5 tokens, more than max_seq_length 4");
}

// Multiple choice: each example's choices become rows of their own, example-major, with a label
// per example and row ids counting choices; packed or padded alike.
TEST(DataCollate, LaysAnExamplesChoicesOutAsRowsWithOneLabel) {
  Dataset d{"swag.csv", {}};
  for (int e = 0; e < 2; ++e) {
    Example x;
    x.choice_lengths = {3, 2};
    x.input_ids = {1, 10 + e, 2, 1, 20 + e};
    x.token_type_ids = {0, 0, 0, 0, 1};
    x.attention_mask = {1, 1, 1, 1, 1};
    x.label = e;
    d.examples.push_back(x);
  }
  const std::vector<std::int64_t> rows = {1, 0};
  const Batch packed = collate(d, rows, 8, Padding::kNone, 0, Target::kChoice);
  EXPECT_EQ(packed.batch, 4);
  EXPECT_EQ(packed.choices, 2);
  EXPECT_EQ(packed.labels, (std::vector<std::int32_t>{1, 0}));
  EXPECT_EQ(packed.row_ids, (std::vector<std::int64_t>{2, 3, 0, 1}));
  EXPECT_EQ(packed.input_ids, (std::vector<std::int32_t>{1, 11, 2, 1, 21, 1, 10, 2, 1, 20}));
  EXPECT_EQ(packed.offsets, (std::vector<std::int32_t>{0, 3, 5, 8, 10}));
  const Batch padded = collate(d, rows, 8, Padding::kLongest, 0, Target::kChoice);
  EXPECT_EQ(padded.seq, 3);
  EXPECT_EQ(padded.input_ids, (std::vector<std::int32_t>{1, 11, 2, 1, 21, 0, 1, 10, 2, 1, 20, 0}));
  d.examples[0].choice_lengths = {5};
  EXPECT_THROW(collate(d, rows, 8, Padding::kNone, 0, Target::kChoice), InputError);
}

// Listwise reranking: an example's candidates as rows, lists of any length side by side, a
// target per row, row ids distinct across examples whatever the lengths.
TEST(DataCollate, LaysListsOfAnyLengthOutWithATargetPerRow) {
  Dataset d;
  d.source = "lists.jsonl";
  Example three;  // three candidates of 2, 3 and 2 tokens
  three.input_ids = {2, 5, 2, 6, 3, 2, 7};
  three.token_type_ids = Ids(7, 0);
  three.attention_mask = Ids(7, 1);
  three.choice_lengths = {2, 3, 2};
  three.choice_targets = {1.0f, 0.0f, 0.5f};
  Example one;
  one.input_ids = {2, 8, 3};
  one.token_type_ids = Ids(3, 0);
  one.attention_mask = Ids(3, 1);
  one.choice_lengths = {3};
  one.choice_targets = {2.0f};
  d.examples = {three, one};
  const std::vector<std::int64_t> rows = {1, 0};
  const Batch b = collate(d, rows, 8, Padding::kNone, 0, Target::kList);
  EXPECT_EQ(b.batch, 4);
  EXPECT_EQ(b.list_lengths, (Ids{1, 3}));
  EXPECT_EQ(b.targets, (std::vector<float>{2.0f, 1.0f, 0.0f, 0.5f}));
  EXPECT_EQ(b.offsets, (Ids{0, 3, 5, 8, 10}));
  EXPECT_EQ(b.choices, 0);
  std::vector<std::int64_t> ids = b.row_ids;
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end());
  d.examples[0].choice_targets.pop_back();  // a label missing
  EXPECT_THROW(collate(d, rows, 8, Padding::kNone, 0, Target::kList), InputError);
}

}  // namespace
}  // namespace shmtrain::data
