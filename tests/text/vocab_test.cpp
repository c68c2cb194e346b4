#include "shmtrain/text/vocab.hpp"

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
using shmtrain::testing::write_file;

TEST(TextVocab, IdsAreLineNumbersWithAnyLineEnding) {
  TempDir dir;
  write_file(dir / "lf.txt", "[PAD]\n[UNK]\nhello\n##lo");  // no newline at the end
  write_file(dir / "crlf.txt", "[PAD]\r\n[UNK]\r\nhello\r\n##lo\r\n");
  write_file(dir / "cr.txt", "[PAD]\r[UNK]\rhello\r##lo\r");
  const std::vector<std::string> expected = {"[PAD]", "[UNK]", "hello", "##lo"};
  EXPECT_EQ(read_vocab_txt(dir / "lf.txt"), expected);
  EXPECT_EQ(read_vocab_txt(dir / "crlf.txt"), expected);
  EXPECT_EQ(read_vocab_txt(dir / "cr.txt"), expected);
}

TEST(TextVocab, BlankLinesKeepTheirIdAndDuplicatesTakeTheLast) {
  TempDir dir;
  write_file(dir / "vocab.txt", "x\n\ny\nx\n");
  const Vocab vocab(read_vocab_txt(dir / "vocab.txt"));
  EXPECT_EQ(vocab.size(), 4u);
  EXPECT_EQ(vocab.find("y"), 2);
  EXPECT_EQ(vocab.find("x"), 3);  // HF's dict: the later line overwrites
  EXPECT_EQ(vocab.find(""), Vocab::kNotFound);
  EXPECT_EQ(vocab.token(0), "x");
}

TEST(TextVocab, ContinuationPiecesAreFoundWithoutTheirPrefix) {
  const Vocab vocab({"un", "##aff", "##able", "##", "able"});
  EXPECT_EQ(vocab.find_continuation("aff"), 1);
  EXPECT_EQ(vocab.find_continuation("able"), 2);
  EXPECT_EQ(vocab.find("able"), 4);
  EXPECT_EQ(vocab.find("##aff"), 1);  // a word that starts with ## matches the token as is
  EXPECT_EQ(vocab.find_continuation("un"), Vocab::kNotFound);
  EXPECT_EQ(vocab.find("##"), 3);
}

TEST(TextVocab, BadFilesAreInputErrorsNamingTheFile) {
  TempDir dir;
  EXPECT_EQ(error_of([&] { read_vocab_txt(dir / "missing.txt"); }),
            "vocabulary file " + (dir / "missing.txt").string() +
                " not found: pass --vocab a vocab.txt, a tokenizer.json or a Hugging Face model folder "
                "holding one");
  write_file(dir / "empty.txt", "");
  EXPECT_EQ(error_of([&] { read_vocab_txt(dir / "empty.txt"); }),
            "vocabulary file " + (dir / "empty.txt").string() +
                " is empty: a BERT vocab.txt holds one token per line");
  write_file(dir / "latin1.txt", "[PAD]\ncaf\xE9\n");
  EXPECT_EQ(error_of([&] { read_vocab_txt(dir / "latin1.txt"); }),
            (dir / "latin1.txt").string() +
                ":2: invalid UTF-8 at byte 3 of the line (0xE9): vocab.txt must be UTF-8");
}

TEST(TextVocab, TokensOfTenMegabytesOrWithANulByteAreRefusedNamingTheLine) {
  TempDir dir;
  write_file(dir / "long.txt", "[PAD]\n" + std::string(10 << 20, 'a') + "\n");
  EXPECT_EQ(error_of([&] { read_vocab_txt(dir / "long.txt"); }),
            (dir / "long.txt").string() +
                ":2: a token of 10485760 bytes; vocabulary tokens are at most 1024 bytes");
  write_file(dir / "nul.txt", std::string("[PAD]\n[UNK]\nab\0c\n", 15));
  EXPECT_EQ(error_of([&] { read_vocab_txt(dir / "nul.txt"); }),
            (dir / "nul.txt").string() + ":3: the token holds a NUL byte at byte 2");
}

TEST(TextVocab, LongestMatchEndsOnACharacterBoundaryAndTakesTheLastDuplicate) {
  const Vocab vocab({"a", "ab", "abc", "##b", "##bc", "\xC3", "é", "ab"});
  EXPECT_EQ(vocab.longest_match("abcd", false).id, 2);
  EXPECT_EQ(vocab.longest_match("abcd", false).bytes, 3u);
  EXPECT_EQ(vocab.longest_match("abd", false).id, 7);  // "ab" listed twice: the last id, as find()
  EXPECT_EQ(vocab.longest_match("bcd", true).id, 4);
  EXPECT_EQ(vocab.longest_match("bcd", false).id, Vocab::kNotFound);
  EXPECT_EQ(vocab.longest_match("b", true).bytes, 1u);
  // "\xC3" (a lone lead byte, only possible in a hand-built Vocab) never matches half of é.
  EXPECT_EQ(vocab.longest_match("é", false).id, 6);
  EXPECT_EQ(vocab.longest_match("\xC3\xA8", false).id, Vocab::kNotFound);
}

TEST(TextVocab, AnEmptyPrefixLooksPiecesUpAsTheyAre) {
  const Vocab vocab({"un", "able"}, "");
  EXPECT_EQ(vocab.find_continuation("able"), 1);
  EXPECT_EQ(vocab.longest_match("able", true).id, 1);
}

TEST(TextVocab, CasedVocabularyIsRecognised) {
  const Vocab uncased(shmtrain::testing::uncased_vocab());
  EXPECT_EQ(find_cased_token(uncased), std::nullopt);  // [CLS] [UNK] ... do not count
  const Vocab cased(shmtrain::testing::cased_vocab());
  EXPECT_EQ(find_cased_token(cased), "The");
  // Upper-case letters of other scripts count too.
  EXPECT_EQ(find_cased_token(Vocab({"[CLS]", "[unused1]", "ελλάδα", "Ελλάδα"})), "Ελλάδα");
}

}  // namespace
}  // namespace shmtrain::text
