// Basic tokenization against Hugging Face's rules (BertNormalizer + BertPreTokenizer). Each
// expectation is worked out from the rule it names; see bert_words.hpp.
#include "shmtrain/text/bert_words.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/text/unicode_rules.hpp"

namespace shmtrain::text {
namespace {

using Words = std::vector<std::string>;

NormalizerOptions uncased() { return {}; }

NormalizerOptions cased() {
  NormalizerOptions options;
  options.lowercase = false;
  return options;
}

Words split(const NormalizerOptions& options, const std::string& text) {
  return split_bert_words(options, text);
}

TEST(TextBertWords, UncasedLowerCasesAndStripsAccents) {
  EXPECT_EQ(split(uncased(), "Café naïve Crème brûlée"), (Words{"cafe", "naive", "creme", "brulee"}));
  // Decomposed input: NFD leaves e + U+0301; the Mn mark is dropped.
  EXPECT_EQ(split(uncased(), "cafe\xCC\x81"), (Words{"cafe"}));
  // İ lower-cases to i + U+0307 (a Mn mark), which stripping removes.
  EXPECT_EQ(split(uncased(), "İSTANBUL"), (Words{"istanbul"}));
  // Σ lower-cases to σ everywhere, also at the end of a word (BertTokenizerFast; the slow
  // tokenizer's str.lower() would write ς).
  EXPECT_EQ(split(uncased(), "ΟΔΟΣ"), (Words{"οδοσ"}));
}

TEST(TextBertWords, CasedKeepsCaseAndAccents) {
  EXPECT_EQ(split(cased(), "Café naïve Crème brûlée"), (Words{"Café", "naïve", "Crème", "brûlée"}));
  // No NFC step (BertTokenizerFast has none): e + U+0301 stays two code points, one word.
  EXPECT_EQ(split(cased(), "cafe\xCC\x81"), (Words{"cafe\xCC\x81"}));
}

TEST(TextBertWords, StripAccentsCanBeSetApartFromLowerCasing) {
  NormalizerOptions strip_only = cased();
  strip_only.strip_accents = true;
  EXPECT_EQ(split(strip_only, "Café Crème"), (Words{"Cafe", "Creme"}));

  NormalizerOptions lower_only = uncased();
  lower_only.strip_accents = false;
  EXPECT_EQ(split(lower_only, "Café Crème"), (Words{"café", "crème"}));
  EXPECT_EQ(split(lower_only, "İ"), (Words{"i\xCC\x87"}));  // the dot above stays
}

TEST(TextBertWords, NfdOrdersCombiningMarksCanonically) {
  // Marks that survive stripping must come out in canonical order. U+1D16D (Mc, class 226)
  // written before U+1D165 (Mc, class 216) is reordered by NFD to U+1D165 U+1D16D; the Mn
  // U+0301 between them goes. Without NFD (cased, no stripping) the text is kept as written.
  NormalizerOptions strip_only = cased();
  strip_only.strip_accents = true;
  const std::string written = "x\U0001D16D\u0301\U0001D165";
  EXPECT_EQ(split(strip_only, written), (Words{"x\U0001D165\U0001D16D"}));
  EXPECT_EQ(split(cased(), written), (Words{written}));
}

TEST(TextBertWords, LongRunsOfMarksAreOrderedInOnePass) {
  // A crafted run of 150,000 marks, classes 226 and 216 alternating, must come out stably
  // sorted (all 216s, then all 226s) without a quadratic sort: an insertion sort took over
  // 30 s on this run (issue #21), the library's stable sort well under a second.
  NormalizerOptions strip_only = cased();
  strip_only.strip_accents = true;
  std::string written = "x";
  std::string expected = "x";
  for (int i = 0; i < 75000; ++i) written += "\U0001D16D\U0001D165";
  for (int i = 0; i < 75000; ++i) expected += "\U0001D165";
  for (int i = 0; i < 75000; ++i) expected += "\U0001D16D";
  EXPECT_EQ(split(strip_only, written), (Words{expected}));
}

TEST(TextBertWords, CjkIdeographsAreWordsOfTheirOwn) {
  EXPECT_EQ(split(uncased(), "每个字"), (Words{"每", "个", "字"}));
  EXPECT_EQ(split(uncased(), "BERT模型很好used"), (Words{"bert", "模", "型", "很", "好", "used"}));
  // Kana and Hangul are not in the CJK ideograph block: they stay whole words.
  EXPECT_EQ(split(cased(), "ひらがな カタカナ 한국어"), (Words{"ひらがな", "カタカナ", "한국어"}));
  // Uncased, NFD turns Hangul syllables into conjoining jamo (as HF does): 한 국 어 ->
  // ᄒ ᅡ ᆫ ᄀ ᅮ ᆨ ᄋ ᅥ, all letters (Lo), so still one word.
  EXPECT_EQ(split(uncased(), "한국어"), (Words{"\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165"}));
  NormalizerOptions no_cjk = uncased();
  no_cjk.handle_chinese_chars = false;
  EXPECT_EQ(split(no_cjk, "每个字"), (Words{"每个字"}));
}

TEST(TextBertWords, PunctuationSplitsIntoSingleCharacters) {
  // $ ^ ` | are ASCII symbols (Sc, Sk, Sm in Unicode) that BERT counts as punctuation.
  EXPECT_EQ(split(uncased(), "a$b^c`d|e"), (Words{"a", "$", "b", "^", "c", "`", "d", "|", "e"}));
  EXPECT_EQ(split(uncased(), "«Bonjour» — ¿Qué?"), (Words{"«", "bonjour", "»", "—", "¿", "que", "?"}));
  EXPECT_EQ(split(uncased(), "state-of-the-art"), (Words{"state", "-", "of", "-", "the", "-", "art"}));
  EXPECT_EQ(split(uncased(), "don't..."), (Words{"don", "'", "t", ".", ".", "."}));
  // Non-ASCII symbols are not punctuation: they stay inside the word.
  EXPECT_EQ(split(uncased(), "5€ ©2020 30°"), (Words{"5€", "©2020", "30°"}));
}

TEST(TextBertWords, ControlCharactersAreDropped) {
  EXPECT_EQ(split(uncased(), std::string("ab\0cd", 5)), (Words{"abcd"}));
  EXPECT_EQ(split(uncased(), "zero\u200bwidth soft\u00adhyphen"), (Words{"zerowidth", "softhyphen"}));
  EXPECT_EQ(split(uncased(),
                  "a\xEF\xBF\xBD"
                  "b x\x07y \xEF\xBB\xBFz"),
            (Words{"ab", "xy", "z"}));  // U+FFFD, BEL, BOM
  EXPECT_EQ(split(uncased(), "tab\tnew\nline\rret"), (Words{"tab", "new", "line", "ret"}));

  NormalizerOptions keep = uncased();
  keep.clean_text = false;
  EXPECT_EQ(split(keep, "zero\u200bwidth"), (Words{"zero\u200bwidth"}));
}

TEST(TextBertWords, UnicodeSpacesSeparateWords) {
  EXPECT_EQ(split(uncased(), "a\u3000b\u00a0c\u2028d\u2003e"), (Words{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(split(uncased(), "  \t\u3000 "), Words{});
  EXPECT_EQ(split(uncased(), ""), Words{});
}

TEST(TextBertWords, AsciiFastPathAgreesWithTheUnicodeRules) {
  // ASCII goes through a lookup table; it must classify every byte as unicode_rules.hpp does.
  for (const bool clean_text : {true, false}) {
    NormalizerOptions options = uncased();
    options.clean_text = clean_text;
    for (int c = 0; c < 128; ++c) {
      const auto cp = static_cast<char32_t>(c);
      const std::string middle(1, static_cast<char>(c));
      std::string text = "a";  // built with += : GCC 12's -Wrestrict misfires on "a" + s + "b"
      text += middle;
      text += 'b';
      Words expected;
      if (clean_text && is_bert_control(cp)) {
        expected = {"ab"};
      } else if (is_bert_whitespace(cp)) {
        expected = {"a", "b"};
      } else if (is_bert_punctuation(cp)) {
        expected = {"a", middle, "b"};
      } else {
        char32_t lowered[2];
        ASSERT_EQ(to_lower_full(cp, lowered), 1);
        std::string word = "a";
        word += static_cast<char>(lowered[0]);
        word += 'b';
        expected = {word};
      }
      EXPECT_EQ(split(options, text), expected) << "byte " << c << " clean_text " << clean_text;
    }
  }
}

TEST(TextBertWords, WordListCountsCharactersAndAppends) {
  WordList list;
  split_bert_words(uncased(), "Été 每x", list);
  split_bert_words(uncased(), "ok", list);
  ASSERT_EQ(list.words.size(), 4u);
  EXPECT_EQ(list.text(list.words[0]), "ete");
  EXPECT_EQ(list.words[0].chars, 3u);
  EXPECT_EQ(list.text(list.words[1]), "每");
  EXPECT_EQ(list.words[1].chars, 1u);
  EXPECT_EQ(list.words[1].size, 3u);
  EXPECT_EQ(list.text(list.words[2]), "x");
  EXPECT_EQ(list.text(list.words[3]), "ok");
}

TEST(TextBertWords, InvalidUtf8IsAnInputErrorWithTheByte) {
  try {
    split(uncased(), "ok \xC3(");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid UTF-8 at byte 3"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace shmtrain::text
