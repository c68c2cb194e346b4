// HfTokenizer end to end: special tokens in text, pairs, longest_first truncation,
// padding, and the errors a data file can trigger.
#include "shmtrain/text/hf_tokenizer.hpp"

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"
#include "support/test_support.hpp"
#include "text/vocab_fixture.hpp"

namespace shmtrain::text {
namespace {

using shmtrain::testing::error_of;

using shmtrain::testing::TempDir;
using shmtrain::testing::write_vocab_folder;
using Tokens = std::vector<std::string>;

class TextBertTokenizer : public ::testing::Test {
 protected:
  TextBertTokenizer()
      : uncased_(HfTokenizer::load_bert(write_vocab_folder(uncased_dir_, shmtrain::testing::uncased_vocab()))),
        cased_(HfTokenizer::load_bert(write_vocab_folder(cased_dir_, shmtrain::testing::cased_vocab()))) {}

  static Tokens tokens(const HfTokenizer& tokenizer, const std::string& a, std::optional<std::string> b = {},
                       EncodeOptions options = {}) {
    std::optional<std::string_view> b_view;
    if (b) b_view = *b;
    return tokenizer.tokens(tokenizer.encode(a, b_view, options).input_ids);
  }

  TempDir uncased_dir_;
  TempDir cased_dir_;
  HfTokenizer uncased_;
  HfTokenizer cased_;
};

TEST_F(TextBertTokenizer, SingleTextIsClsTextSep) {
  const Encoding encoding = uncased_.encode("The cat sat on the mat.");
  EXPECT_EQ(uncased_.tokens(encoding.input_ids),
            (Tokens{"[CLS]", "the", "cat", "sat", "on", "the", "mat", ".", "[SEP]"}));
  EXPECT_EQ(encoding.input_ids.front(), uncased_.token_id("[CLS]"));
  EXPECT_EQ(encoding.input_ids[1], uncased_.token_id("the"));
  EXPECT_EQ(encoding.token_type_ids, std::vector<std::int32_t>(9, 0));
  EXPECT_EQ(encoding.attention_mask, std::vector<std::int32_t>(9, 1));
}

TEST_F(TextBertTokenizer, PairHasSegmentIds) {
  const Encoding encoding = uncased_.encode("Hello, world!", "cats");
  EXPECT_EQ(uncased_.tokens(encoding.input_ids),
            (Tokens{"[CLS]", "hello", ",", "world", "!", "[SEP]", "cat", "##s", "[SEP]"}));
  EXPECT_EQ(encoding.token_type_ids, (std::vector<std::int32_t>{0, 0, 0, 0, 0, 0, 1, 1, 1}));
  // An empty second text still gets its [SEP] and segment.
  const Encoding empty_b = uncased_.encode("hello", "");
  EXPECT_EQ(uncased_.tokens(empty_b.input_ids), (Tokens{"[CLS]", "hello", "[SEP]", "[SEP]"}));
  EXPECT_EQ(empty_b.token_type_ids, (std::vector<std::int32_t>{0, 0, 0, 1}));
}

TEST_F(TextBertTokenizer, CasedAndUncasedVocabulariesTokenizeAccentsDifferently) {
  EXPECT_NE(uncased_.description().find("do_lower_case true"), std::string::npos) << uncased_.description();
  EXPECT_NE(cased_.description().find("do_lower_case false"), std::string::npos) << cased_.description();
  EXPECT_EQ(tokens(uncased_, "Café naïve Crème brûlée"),
            (Tokens{"[CLS]", "cafe", "naive", "creme", "brulee", "[SEP]"}));
  // Cased: "Crème" is whole; "brûlée" is a token too; "Brûlée" is not, nor any piece
  // starting "B": one [UNK]. "naïve" keeps its diaeresis.
  EXPECT_EQ(tokens(cased_, "Café naïve Crème brûlée Brûlée"),
            (Tokens{"[CLS]", "Café", "naïve", "Crème", "brûlée", "[UNK]", "[SEP]"}));
  // Longest match first: "Paris" is a token, so not Pa ##is.
  EXPECT_EQ(tokens(cased_, "Paris unaffable"), (Tokens{"[CLS]", "Paris", "un", "##aff", "##able", "[SEP]"}));
}

TEST_F(TextBertTokenizer, SpecialTokensInTheTextStayWhole) {
  EXPECT_EQ(tokens(uncased_, "the [MASK] sat"), (Tokens{"[CLS]", "the", "[MASK]", "sat", "[SEP]"}));
  // Found in the raw text even without spaces, and never lower-cased.
  EXPECT_EQ(tokens(uncased_, "hello[SEP]World"), (Tokens{"[CLS]", "hello", "[SEP]", "world", "[SEP]"}));
  // Written in lower case it is ordinary text: punctuation split, then word pieces.
  EXPECT_EQ(tokens(uncased_, "the [mask] sat"), (Tokens{"[CLS]", "the", "[", "mask", "]", "sat", "[SEP]"}));
  // In a pair the special tokens belong to their segment.
  const Encoding pair = uncased_.encode("a [MASK]", "[CLS]b");
  EXPECT_EQ(uncased_.tokens(pair.input_ids), (Tokens{"[CLS]", "a", "[MASK]", "[SEP]", "[CLS]", "b", "[SEP]"}));
  EXPECT_EQ(pair.token_type_ids, (std::vector<std::int32_t>{0, 0, 0, 0, 1, 1, 1}));
}

TEST_F(TextBertTokenizer, MaskMissingFromTheVocabularyIsUnknownButWhole) {
  TempDir dir;
  std::vector<std::string> no_mask = shmtrain::testing::uncased_vocab();
  no_mask.erase(no_mask.begin() + 4);
  const HfTokenizer tokenizer = HfTokenizer::load_bert(write_vocab_folder(dir, no_mask));
  EXPECT_EQ(tokens(tokenizer, "a [MASK] b"), (Tokens{"[CLS]", "a", "[UNK]", "b", "[SEP]"}));
}

TEST_F(TextBertTokenizer, CjkControlAndWhitespaceEndToEnd) {
  EXPECT_EQ(tokens(uncased_, "BERT模型很好used"),
            (Tokens{"[CLS]", "bert", "模", "型", "很", "好", "used", "[SEP]"}));
  EXPECT_EQ(tokens(uncased_, "每个字"), (Tokens{"[CLS]", "每", "个", "字", "[SEP]"}));
  EXPECT_EQ(tokens(uncased_, "zero\u200bwidth\u3000soft\u00adhyphen\u00a0x"),
            (Tokens{"[CLS]", "zero", "##width", "soft", "##hyphen", "x", "[SEP]"}));
  EXPECT_EQ(tokens(uncased_, std::string("a\0b", 3)), (Tokens{"[CLS]", "[UNK]", "[SEP]"}));  // "ab": no "##b"
  EXPECT_EQ(tokens(uncased_, "«Bonjour» — ¿Qué? $a^b`c|d"),
            (Tokens{"[CLS]", "«", "bon", "##jour", "»", "—", "¿", "que", "?", "$", "a", "^", "b", "`", "c", "|", "d",
                    "[SEP]"}));
}

TEST_F(TextBertTokenizer, VeryLongWordsAreUnknown) {
  // un + 30 x aff + able + able: 100 characters, covered by un ##aff ... ##able ##able.
  std::string word_100 = "un";
  for (int i = 0; i < 30; ++i) word_100 += "aff";
  word_100 += "ableable";
  ASSERT_EQ(word_100.size(), 100u);
  const Tokens pieces = tokens(uncased_, word_100);
  ASSERT_EQ(pieces.size(), 2u + 1 + 30 + 2);  // [CLS] un ##aff x30 ##able ##able [SEP]
  EXPECT_EQ(pieces[1], "un");
  EXPECT_EQ(pieces[2], "##aff");
  EXPECT_EQ(pieces[pieces.size() - 2], "##able");
  // One more character makes 101: [UNK] by the length rule alone (a trailing "##e" exists,
  // so the word could be covered).
  EXPECT_EQ(tokens(uncased_, word_100 + "e"), (Tokens{"[CLS]", "[UNK]", "[SEP]"}));
  EXPECT_EQ(tokens(uncased_, "the " + word_100 + "e the"), (Tokens{"[CLS]", "the", "[UNK]", "the", "[SEP]"}));
}

TEST(TextTruncation, LongestFirstMatchesTokenizersTable) {
  // tokenizers/src/utils/truncation.rs, test truncate_encodings_longest_first: sequences of
  // 0, 2, 4 and 8 tokens, max_length 7 (our budget: max_seq_length - 3).
  struct Case {
    std::size_t a, b, kept_a, kept_b;
  };
  const Case cases[] = {{0, 0, 0, 0}, {0, 2, 0, 2}, {0, 4, 0, 4}, {0, 8, 0, 7}, {2, 0, 2, 0}, {2, 2, 2, 2},
                        {2, 4, 2, 4}, {2, 8, 2, 5}, {4, 0, 4, 0}, {4, 2, 4, 2}, {4, 4, 3, 4}, {4, 8, 3, 4},
                        {8, 0, 7, 0}, {8, 2, 5, 2}, {8, 4, 4, 3}, {8, 8, 3, 4}};
  for (const Case& c : cases) {
    EXPECT_EQ(longest_first_lengths(c.a, c.b, 7), std::pair(c.kept_a, c.kept_b)) << c.a << " + " << c.b;
  }
  // Even budgets split evenly; a zero budget keeps nothing.
  using Kept = std::pair<std::size_t, std::size_t>;
  EXPECT_EQ(longest_first_lengths(5, 5, 8), Kept(4, 4));
  EXPECT_EQ(longest_first_lengths(9, 5, 8), Kept(4, 4));
  EXPECT_EQ(longest_first_lengths(9, 3, 8), Kept(5, 3));
  EXPECT_EQ(longest_first_lengths(5, 5, 0), Kept(0, 0));
}

TEST_F(TextBertTokenizer, PairTruncationToMaxSeqLength) {
  const std::string five_a = "a b c d e";
  const std::string five_b = "v w x y z";
  auto pair = [&](const std::string& a, const std::string& b, std::size_t max_seq_length) {
    return tokens(uncased_, a, b, EncodeOptions{max_seq_length, false});
  };
  // Fits: nothing removed.
  EXPECT_EQ(pair(five_a, five_b, 13).size(), 13u);
  // Tie 5 + 5 into 7: the first keeps 3, the second 4 (tokenizers' rule: on a tie the second
  // sequence is the longer one and takes the odd token).
  EXPECT_EQ(pair(five_a, five_b, 10),
            (Tokens{"[CLS]", "a", "b", "c", "[SEP]", "v", "w", "x", "y", "[SEP]"}));
  // Tie into 8: 4 each.
  EXPECT_EQ(pair(five_a, five_b, 11),
            (Tokens{"[CLS]", "a", "b", "c", "d", "[SEP]", "v", "w", "x", "y", "[SEP]"}));
  // Only the longer gives: 5 + 2 into 5 -> 3 + 2.
  EXPECT_EQ(pair(five_a, "v w", 8), (Tokens{"[CLS]", "a", "b", "c", "[SEP]", "v", "w", "[SEP]"}));
  // The longer first sequence keeps the odd token: 5 + 4 into 5 -> 3 + 2.
  EXPECT_EQ(pair(five_a, "v w x y", 8), (Tokens{"[CLS]", "a", "b", "c", "[SEP]", "v", "w", "[SEP]"}));
  // One side empty: the other takes the whole budget.
  EXPECT_EQ(pair("", five_b, 6), (Tokens{"[CLS]", "[SEP]", "v", "w", "x", "[SEP]"}));
  EXPECT_EQ(pair(five_a, "", 6), (Tokens{"[CLS]", "a", "b", "c", "[SEP]", "[SEP]"}));
  // Exactly the special tokens.
  EXPECT_EQ(pair(five_a, five_b, 3), (Tokens{"[CLS]", "[SEP]", "[SEP]"}));
  // Single text: cut from the end.
  EXPECT_EQ(tokens(uncased_, five_a, std::nullopt, EncodeOptions{4, false}), (Tokens{"[CLS]", "a", "b", "[SEP]"}));
  EXPECT_EQ(tokens(uncased_, five_a, std::nullopt, EncodeOptions{2, false}), (Tokens{"[CLS]", "[SEP]"}));
}

TEST_F(TextBertTokenizer, MaxSeqLengthBelowTheSpecialTokensIsAnError) {
  EXPECT_EQ(error_of([&] { uncased_.encode("a", "b", EncodeOptions{2, false}); }),
            "max_seq_length 2 is below the 3 special tokens the tokenizer adds");
  EXPECT_EQ(error_of([&] { uncased_.encode("a", std::nullopt, EncodeOptions{1, false}); }),
            "max_seq_length 1 is below the 2 special tokens the tokenizer adds");
  EXPECT_EQ(error_of([&] { uncased_.encode("a", std::nullopt, EncodeOptions{0, true}); }),
            "padding to max_seq_length needs a max_seq_length");
}

TEST_F(TextBertTokenizer, PaddingFillsWithPadAndZeroMask) {
  const Encoding encoding = uncased_.encode("the cat", "a", EncodeOptions{8, true});
  const std::int32_t pad = uncased_.token_id("[PAD]").value();
  EXPECT_EQ(pad, uncased_.pad_id());
  EXPECT_EQ(uncased_.tokens(encoding.input_ids),
            (Tokens{"[CLS]", "the", "cat", "[SEP]", "a", "[SEP]", "[PAD]", "[PAD]"}));
  EXPECT_EQ(encoding.token_type_ids, (std::vector<std::int32_t>{0, 0, 0, 0, 1, 1, 0, 0}));
  EXPECT_EQ(encoding.attention_mask, (std::vector<std::int32_t>{1, 1, 1, 1, 1, 1, 0, 0}));
  // Truncated and padded to the same length: nothing to pad.
  EXPECT_EQ(uncased_.encode("a b c d e", "v w x y z", EncodeOptions{8, true}).attention_mask,
            std::vector<std::int32_t>(8, 1));
}

TEST_F(TextBertTokenizer, InvalidUtf8NamesTheTextAndTheByte) {
  EXPECT_EQ(error_of([&] { uncased_.encode("fine", "caf\xE9 [SEP] x"); }),
            "text_b: invalid UTF-8 at byte 3 (0xE9): re-encode the input as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)");
  // The offset is within the whole text, also after a special token.
  EXPECT_EQ(error_of([&] { uncased_.encode("[CLS] ab\xC3", std::nullopt); }),
            "text_a: invalid UTF-8 at byte 8 (0xC3): re-encode the input as UTF-8 (e.g. `iconv -f latin1 -t utf-8`)");
}

TEST(TextBertTokenizerVocab, MissingSpecialTokensAreNamed) {
  for (const std::string missing : {"[CLS]", "[SEP]", "[UNK]"}) {
    TempDir dir;
    std::vector<std::string> tokens = shmtrain::testing::uncased_vocab();
    std::erase(tokens, missing);
    write_vocab_folder(dir, tokens);
    EXPECT_EQ(error_of([&] { HfTokenizer::load_bert(dir.path()); }),
              (dir / "vocab.txt").string() + ": the vocabulary has no " + missing +
                  " token; a BERT vocabulary needs [CLS], [SEP] and [UNK]: is this a BERT vocab.txt / "
                  "tokenizer.json?");
  }
}

// [PAD] is optional to tokenize (run_glue's tokenizer works without one); padding needs it,
// and training refuses a tokenizer without a padding token (run_inputs).
TEST(TextBertTokenizerVocab, AVocabularyWithoutPadTokenizesAndRefusesOnlyPadding) {
  TempDir dir;
  std::vector<std::string> tokens = shmtrain::testing::uncased_vocab();
  std::erase(tokens, std::string("[PAD]"));
  write_vocab_folder(dir, tokens);
  const HfTokenizer tokenizer = HfTokenizer::load_bert(dir.path());
  EXPECT_EQ(tokenizer.pad_id(), -1);
  EXPECT_EQ(tokenizer.tokens(tokenizer.encode("the cat").input_ids), (Tokens{"[CLS]", "the", "cat", "[SEP]"}));
  EXPECT_NE(error_of([&] { tokenizer.encode("the cat", std::nullopt, {8, true}); }).find("needs a [PAD] token"),
            std::string::npos);
}

}  // namespace
}  // namespace shmtrain::text
