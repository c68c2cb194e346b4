// run_mlm's masking rule (data/mlm_masking.hpp) against counts over a large sample: 15% of the
// non-special tokens chosen, of those 80% the mask token, 10% a random id, 10% unchanged; no
// special token chosen; whole words whole (WordPiece and byte-level marks) within
// DataCollatorForWholeWordMask's budget; the same (seed, row, epoch) the same mask anywhere.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/data/collate.hpp"
#include "shmtrain/data/mlm_masking.hpp"

namespace shmtrain::data {
// Its own namespace: the unity build puts test files side by side.
namespace mlm_masking_test {
namespace {

constexpr std::int32_t kVocab = 30522, kMask = 103, kCls = 101, kSep = 102;

// A row [CLS] w... [SEP] of `length` tokens, ids away from the specials.
struct Row {
  std::vector<std::int32_t> ids;
  std::vector<std::uint8_t> special;
};

Row make_row(std::size_t length, std::uint64_t salt) {
  Row r;
  for (std::size_t i = 0; i < length; ++i) {
    const bool edge = i == 0 || i + 1 == length;
    r.ids.push_back(edge ? (i == 0 ? kCls : kSep)
                         : static_cast<std::int32_t>(1000 + (i * 7919 + salt) % 20000));
    r.special.push_back(edge ? 1 : 0);
  }
  return r;
}

TEST(MlmMasking, ChoosesFifteenPercentAndSplitsThemEightyTenTen) {
  const MlmMasking rule{0.15, kMask, kVocab, false};
  std::int64_t candidates = 0, chosen = 0, masked = 0, replaced = 0, kept = 0;
  for (std::uint64_t row = 0; row < 2000; ++row) {
    const Row r = make_row(128, row);
    const MaskedRow m = mask_row(r.ids, r.special, {}, rule, 42, row, 0);
    for (std::size_t i = 0; i < r.ids.size(); ++i) {
      if (r.special[i] != 0) {
        ASSERT_EQ(m.labels[i], -100) << "a special token was chosen";
        ASSERT_EQ(m.input_ids[i], r.ids[i]);
        continue;
      }
      ++candidates;
      if (m.labels[i] == -100) {
        ASSERT_EQ(m.input_ids[i], r.ids[i]) << "an unchosen token changed";
        continue;
      }
      ASSERT_EQ(m.labels[i], r.ids[i]);
      ++chosen;
      if (m.input_ids[i] == kMask)
        ++masked;
      else if (m.input_ids[i] != r.ids[i])
        ++replaced;
      else
        ++kept;
    }
  }
  // 252,000 candidates: the binomial's standard deviations are well under these bounds.
  const double share = static_cast<double>(chosen) / static_cast<double>(candidates);
  EXPECT_NEAR(share, 0.15, 0.003);
  EXPECT_NEAR(static_cast<double>(masked) / static_cast<double>(chosen), 0.80, 0.006);
  EXPECT_NEAR(static_cast<double>(replaced) / static_cast<double>(chosen), 0.10, 0.005);
  EXPECT_NEAR(static_cast<double>(kept) / static_cast<double>(chosen), 0.10, 0.005);
}

TEST(MlmMasking, TheSameRowDrawsTheSameMaskAnywhereAndOtherRowsOthers) {
  const MlmMasking rule{0.15, kMask, kVocab, false};
  const Row r = make_row(64, 1);
  const MaskedRow a = mask_row(r.ids, r.special, {}, rule, 7, 12, 3);
  const MaskedRow b = mask_row(r.ids, r.special, {}, rule, 7, 12, 3);
  EXPECT_EQ(a.input_ids, b.input_ids);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_NE(mask_row(r.ids, r.special, {}, rule, 7, 13, 3).labels, a.labels);  // another row
  EXPECT_NE(mask_row(r.ids, r.special, {}, rule, 7, 12, 4).labels, a.labels);  // another epoch
  EXPECT_NE(mask_row(r.ids, r.special, {}, rule, 8, 12, 3).labels, a.labels);  // another seed
}

TEST(MlmMasking, WholeWordsAreChosenWholeWithinTheBudget) {
  const MlmMasking rule{0.15, kMask, kVocab, true};
  std::int64_t tokens = 0, chosen = 0;
  for (std::uint64_t row = 0; row < 500; ++row) {
    Row r = make_row(100, row);
    // Words of up to 3 tokens: token i continues a word unless (5 i + row) mod 3 is 0.
    std::vector<std::uint8_t> continuation(r.ids.size(), 0);
    for (std::size_t i = 2; i + 1 < r.ids.size(); ++i) continuation[i] = (i * 5 + row) % 3 != 0;
    const MaskedRow m = mask_row(r.ids, r.special, continuation, rule, 5, row, 0);
    std::size_t in_row = 0;
    for (std::size_t i = 0; i < r.ids.size(); ++i) {
      if (r.special[i] != 0) {
        ASSERT_EQ(m.labels[i], -100);
      }
      if (m.labels[i] != -100) ++in_row;
      // A continuation token is chosen exactly when the token before it is.
      if (continuation[i] != 0 && r.special[i - 1] == 0) {
        ASSERT_EQ(m.labels[i] != -100, m.labels[i - 1] != -100) << "row " << row << " token " << i;
      }
    }
    // max(1, round(100 x 0.15)) = 15 tokens at most, the specials counted in the length.
    ASSERT_LE(in_row, 15u);
    ASSERT_GE(in_row, 13u);  // words are at most 3 tokens: the budget is all but filled
    tokens += static_cast<std::int64_t>(r.ids.size());
    chosen += static_cast<std::int64_t>(in_row);
  }
  EXPECT_GT(static_cast<double>(chosen) / static_cast<double>(tokens), 0.12);
}

TEST(MlmMasking, WordMarksOfEachTokenizerKind) {
  EXPECT_TRUE(continues_word("##ing", WordMarks::kWordPiece));
  EXPECT_FALSE(continues_word("play", WordMarks::kWordPiece));
  EXPECT_FALSE(continues_word("\u0120play", WordMarks::kByteLevel));
  EXPECT_TRUE(continues_word("ing", WordMarks::kByteLevel));
  EXPECT_FALSE(continues_word("\u2581play", WordMarks::kMetaspace));
  EXPECT_TRUE(continues_word("ing", WordMarks::kMetaspace));
}

TEST(MlmMasking, RefusesAMaskIdOutsideTheVocabulary) {
  const Row r = make_row(8, 0);
  EXPECT_THROW(mask_row(r.ids, r.special, {}, MlmMasking{0.15, kVocab, kVocab, false}, 1, 0, 0), Error);
  EXPECT_THROW(mask_row(r.ids, {}, {}, MlmMasking{0.15, kMask, kVocab, false}, 1, 0, 0), Error);
}

// A batch's rows are masked as mask_row draws them for their row ids, in either layout, padding
// never chosen; rows that bring labels (pre-tokenized with labels) are left as they are. So a row
// gets the same mask on 1 worker or 2, in whichever batch.
TEST(MlmMasking, MaskBatchMasksEachRowByItsRowIdAndLeavesLabelledRows) {
  const MlmMasking rule{0.5, kMask, kVocab, false};
  TokenClasses classes;
  classes.special.assign(kVocab, 0);
  for (const std::int32_t id : {0, kCls, kSep}) classes.special[static_cast<std::size_t>(id)] = 1;
  Dataset rows{"rows.jsonl", {}};
  for (std::size_t n : {40u, 25u, 33u}) {
    const Row r = make_row(n, n);
    Example e;
    e.input_ids = r.ids;
    e.token_type_ids.assign(n, 0);
    e.attention_mask.assign(n, 1);
    rows.examples.push_back(e);
  }
  rows.examples[2].token_labels.assign(33, -100);
  rows.examples[2].token_labels[5] = 77;  // brings its own labels
  const std::vector<std::int64_t> all = {0, 1, 2};
  for (const Padding padding : {Padding::kNone, Padding::kLongest}) {
    Batch batch = collate(rows, all, 64, padding, 0, Target::kMaskedTokens);
    mask_batch(batch, rule, classes, 9, 2);
    for (std::size_t b = 0; b < 2; ++b) {
      const Row r = make_row(rows.examples[b].input_ids.size(), rows.examples[b].input_ids.size());
      const MaskedRow expected = mask_row(r.ids, r.special, {}, rule, 9, b, 2);
      const auto first = static_cast<std::ptrdiff_t>(batch.row_begin(static_cast<std::int64_t>(b)));
      EXPECT_TRUE(std::equal(expected.input_ids.begin(), expected.input_ids.end(), batch.input_ids.begin() + first));
      EXPECT_TRUE(std::equal(expected.labels.begin(), expected.labels.end(), batch.labels.begin() + first));
    }
    const auto third = static_cast<std::ptrdiff_t>(batch.row_begin(2));
    EXPECT_TRUE(std::equal(rows.examples[2].input_ids.begin(), rows.examples[2].input_ids.end(),
                           batch.input_ids.begin() + third));
    EXPECT_EQ(batch.labels[static_cast<std::size_t>(third + 5)], 77);
    if (padding == Padding::kLongest) {  // the padding of rows 1 and 2 stays padding, unlabelled
      for (std::int64_t t = 25; t < batch.seq; ++t) {
        EXPECT_EQ(batch.input_ids[static_cast<std::size_t>(batch.seq + t)], 0);
        EXPECT_EQ(batch.labels[static_cast<std::size_t>(batch.seq + t)], -100);
      }
    }
    // Alone in a batch (another worker's), row 1 draws the same mask.
    const std::vector<std::int64_t> one = {1};
    Batch alone = collate(rows, one, 64, Padding::kNone, 0, Target::kMaskedTokens);
    mask_batch(alone, rule, classes, 9, 2);
    const auto second = static_cast<std::ptrdiff_t>(batch.row_begin(1));
    EXPECT_TRUE(std::equal(alone.labels.begin(), alone.labels.end(), batch.labels.begin() + second));
  }
}

}  // namespace
}  // namespace mlm_masking_test
}  // namespace shmtrain::data
