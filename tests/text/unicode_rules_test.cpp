// The character classes against Hugging Face's definitions (tokenization_utils.py
// _is_whitespace / _is_control / _is_punctuation, tokenizers' normalizers/bert.rs).
#include "shmtrain/text/unicode_rules.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace shmtrain::text {
namespace {

TEST(TextUnicodeRules, WhitespaceIsAsciiSpaceTabsNewlinesAndSpaceSeparators) {
  for (char32_t cp : {U' ', U'\t', U'\n', U'\r', char32_t{0xA0}, char32_t{0x3000}, char32_t{0x2003},
                      char32_t{0x2028}, char32_t{0x2029}}) {
    EXPECT_TRUE(is_bert_whitespace(cp)) << std::hex << static_cast<unsigned>(cp);
  }
  // U+200B zero width space was Zs in old Unicode; it is Cf now, a control, not a space.
  for (char32_t cp : {U'a', U'_', char32_t{0x200B}, char32_t{0xFEFF}}) {
    EXPECT_FALSE(is_bert_whitespace(cp)) << std::hex << static_cast<unsigned>(cp);
  }
}

TEST(TextUnicodeRules, ControlIsEveryOtherCategoryButTabAndNewlines) {
  // Cc (NUL, BEL, DEL, U+0085), Cf (zero width space, soft hyphen, BOM), Co, Cn.
  for (char32_t cp : {char32_t{0}, char32_t{7}, char32_t{0x7F}, char32_t{0x85}, char32_t{0x200B},
                      char32_t{0xAD}, char32_t{0xFEFF}, char32_t{0xE000}, char32_t{0x378}}) {
    EXPECT_TRUE(is_bert_control(cp)) << std::hex << static_cast<unsigned>(cp);
  }
  for (char32_t cp : {U'\t', U'\n', U'\r', U' ', U'a', char32_t{0xA0}, char32_t{0xE9}}) {
    EXPECT_FALSE(is_bert_control(cp)) << std::hex << static_cast<unsigned>(cp);
  }
}

TEST(TextUnicodeRules, PunctuationIsAsciiSymbolsAndUnicodeP) {
  for (const char c : std::string("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")) {
    EXPECT_TRUE(is_bert_punctuation(static_cast<char32_t>(c))) << c;
  }
  // « » (Pi/Pf), ¿ (Po), — (Pd), … (Po), 、。 (Po), 「 (Ps).
  for (char32_t cp : {char32_t{0xAB}, char32_t{0xBB}, char32_t{0xBF}, char32_t{0x2014}, char32_t{0x2026},
                      char32_t{0x3001}, char32_t{0x3002}, char32_t{0x300C}}) {
    EXPECT_TRUE(is_bert_punctuation(cp)) << std::hex << static_cast<unsigned>(cp);
  }
  // Non-ASCII symbols (€ Sc, © So, ° So, × Sm) and letters/digits are not punctuation.
  for (char32_t cp : {U'a', U'0', U' ', char32_t{0x20AC}, char32_t{0xA9}, char32_t{0xB0}, char32_t{0xD7}}) {
    EXPECT_FALSE(is_bert_punctuation(cp)) << std::hex << static_cast<unsigned>(cp);
  }
}

TEST(TextUnicodeRules, CjkIdeographRangesAreTokenizersRanges) {
  for (char32_t cp : {0x4E00u, 0x9FFFu, 0x3400u, 0x4DBFu, 0x20000u, 0x2A6DFu, 0x2A700u, 0x2B81Fu, 0x2B920u,
                      0x2CEAFu, 0xF900u, 0xFAFFu, 0x2F800u, 0x2FA1Fu}) {
    EXPECT_TRUE(is_cjk_ideograph(cp)) << std::hex << static_cast<unsigned>(cp);
  }
  // Hiragana, Katakana, Hangul and the Yijing block between the ranges are not ideographs;
  // U+2B820..U+2B91F are only in the slow tokenizer's range (bert.rs starts at U+2B920).
  for (char32_t cp : {0x3042u, 0x30A2u, 0xAC00u, 0x4DC0u, 0x2B820u, 0x2B91Fu, 0x2CEB0u, 0x3000u}) {
    EXPECT_FALSE(is_cjk_ideograph(cp)) << std::hex << static_cast<unsigned>(cp);
  }
}

TEST(TextUnicodeRules, LowerCaseIsPerCharacterWithTheDottedCapitalI) {
  char32_t out[2];
  ASSERT_EQ(to_lower_full(U'Q', out), 1);
  EXPECT_EQ(out[0], U'q');
  ASSERT_EQ(to_lower_full(0xC9, out), 1);  // É -> é
  EXPECT_EQ(out[0], char32_t{0xE9});
  ASSERT_EQ(to_lower_full(0x130, out), 2);  // İ -> i + combining dot above
  EXPECT_EQ(out[0], U'i');
  EXPECT_EQ(out[1], char32_t{0x307});
  ASSERT_EQ(to_lower_full(0x3A3, out), 1);  // Σ -> σ, never final ς (char by char, as bert.rs)
  EXPECT_EQ(out[0], char32_t{0x3C3});
}

TEST(TextUnicodeRules, CanonicalDecomposition) {
  auto nfd = [](char32_t cp) {
    char32_t out[4];
    const int n = decompose_canonical(cp, out);
    return std::vector<char32_t>(out, out + n);
  };
  EXPECT_EQ(nfd(0xE9), (std::vector<char32_t>{U'e', 0x301}));             // é
  EXPECT_EQ(nfd(0x1E09), (std::vector<char32_t>{U'c', 0x327, 0x301}));    // ḉ
  EXPECT_EQ(nfd(0xAC00), (std::vector<char32_t>{0x1100, 0x1161}));        // 가 -> jamo
  EXPECT_EQ(nfd(0xF900), (std::vector<char32_t>{0x8C48}));                // compatibility ideograph
  EXPECT_EQ(nfd(0xFB01), (std::vector<char32_t>{0xFB01}));                // ﬁ: compatibility only, kept
  EXPECT_EQ(nfd(U'a'), (std::vector<char32_t>{U'a'}));
  EXPECT_TRUE(is_nonspacing_mark(0x301));
  EXPECT_FALSE(is_nonspacing_mark(U'e'));
  EXPECT_EQ(combining_class(0x327), 202);
  EXPECT_EQ(combining_class(0x301), 230);
}

}  // namespace
}  // namespace shmtrain::text
