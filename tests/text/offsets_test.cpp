// tokenize_with_offsets of BERT's vocab.txt pipeline: each token's span of the input in code points, as
// BertTokenizerFast's offset_mapping (tokenizers' NormalizedString alignments) gives it.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/text/hf_tokenizer.hpp"
#include "support/test_support.hpp"
#include "text/vocab_fixture.hpp"

namespace shmtrain::text {
namespace {

using shmtrain::testing::TempDir;
using shmtrain::testing::write_vocab_folder;

struct Tokenized {
  std::vector<std::string> tokens;
  std::vector<CharSpan> offsets;
};

class TokenizerOffsets : public ::testing::Test {
 protected:
  TokenizerOffsets()
      : uncased_(HfTokenizer::load_bert(write_vocab_folder(dir_, testing::uncased_vocab()))) {}

  Tokenized run(const std::string& text) const {
    std::vector<std::int32_t> ids;
    Tokenized out;
    uncased_.tokenize_with_offsets(text, ids, out.offsets, "text");
    out.tokens = uncased_.tokens(ids);
    std::vector<std::int32_t> plain;
    uncased_.tokenize(text, plain, "text");
    EXPECT_EQ(ids, plain) << "tokenize_with_offsets and tokenize disagree on: " << text;
    return out;
  }

  TempDir dir_;
  HfTokenizer uncased_;
};

using Spans = std::vector<CharSpan>;
using Tokens = std::vector<std::string>;

TEST_F(TokenizerOffsets, WordsPiecesAndPunctuation) {
  const Tokenized t = run("The cats sat.");
  EXPECT_EQ(t.tokens, (Tokens{"the", "cat", "##s", "sat", "."}));
  EXPECT_EQ(t.offsets, (Spans{{0, 3}, {4, 7}, {7, 8}, {9, 12}, {12, 13}}));
}

TEST_F(TokenizerOffsets, AccentsStrippedKeepTheOriginalCharacters) {
  // Precomposed é (U+00E9) and è: one character each, the token spans them.
  const Tokenized precomposed = run("Caf\u00e9 cr\u00e8me");
  EXPECT_EQ(precomposed.tokens, (Tokens{"cafe", "creme"}));
  EXPECT_EQ(precomposed.offsets, (Spans{{0, 4}, {5, 10}}));
  // e + U+0301: the stripped combining accent maps nowhere, so "cafe" ends before it.
  const Tokenized decomposed = run("Cafe\u0301 x");
  EXPECT_EQ(decomposed.tokens, (Tokens{"cafe", "x"}));
  EXPECT_EQ(decomposed.offsets, (Spans{{0, 4}, {6, 7}}));
}

TEST_F(TokenizerOffsets, CountsCodePointsNotBytes) {
  // CJK ideographs are words of one character; an emoji (4 UTF-8 bytes) is one character.
  const Tokenized cjk = run("\u6bcf\u4e2a\u5b57 \U0001F600 hello");
  EXPECT_EQ(cjk.tokens, (Tokens{"每", "个", "字", "[UNK]", "hello"}));
  EXPECT_EQ(cjk.offsets, (Spans{{0, 1}, {1, 2}, {2, 3}, {4, 5}, {6, 11}}));
}

TEST_F(TokenizerOffsets, UnknownWordsRemovedCharactersAndSpecialTokens) {
  // A word WordPiece cannot split is one [UNK] over the whole word; a zero-width space
  // (removed by clean_text) inside it stays inside the span.
  const Tokenized unknown = run("qqqq a\u200bb");
  EXPECT_EQ(unknown.tokens, (Tokens{"[UNK]", "[UNK]"}));
  EXPECT_EQ(unknown.offsets, (Spans{{0, 4}, {5, 8}}));
  // A special token written in the text spans itself; the text after it counts on.
  const Tokenized special = run("hello [MASK] w\u00f6rld");
  EXPECT_EQ(special.tokens, (Tokens{"hello", "[MASK]", "world"}));
  EXPECT_EQ(special.offsets, (Spans{{0, 5}, {6, 12}, {13, 18}}));
}

TEST_F(TokenizerOffsets, EmptyAndWhitespaceOnlyTextsHaveNoTokens) {
  EXPECT_TRUE(run("").tokens.empty());
  EXPECT_TRUE(run(" \t\u3000 ").offsets.empty());
}

}  // namespace
}  // namespace shmtrain::text
