// WordPiece against transformers' WordpieceTokenizer rules: greedy longest match first,
// "##" inside words, one [UNK] for a word that cannot be covered or is over 100 characters.
#include "shmtrain/text/wordpiece.hpp"

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace shmtrain::text {
namespace {

class TextWordPiece : public ::testing::Test {
 protected:
  TextWordPiece()
      : vocab_(std::make_shared<const Vocab>(std::vector<std::string>{
            "[PAD]", "[UNK]", "un", "una", "##aff", "##able", "##ffable", "a", "##a", "é", "##é", "##b"})),
        wordpiece_(vocab_, vocab_->find("[UNK]")) {}

  std::vector<std::string> pieces(const std::string& word, std::size_t chars) const {
    std::vector<std::int32_t> ids = {vocab_->find("[PAD]")};  // tokenize appends: keep what is there
    wordpiece_.tokenize(word, chars, ids);
    EXPECT_EQ(ids.front(), vocab_->find("[PAD]"));
    std::vector<std::string> out;
    for (std::size_t i = 1; i < ids.size(); ++i) out.emplace_back(vocab_->token(ids[i]));
    return out;
  }

  std::shared_ptr<const Vocab> vocab_;
  WordPiece wordpiece_;
};

TEST_F(TextWordPiece, GreedyLongestMatchFirst) {
  // "una" is the longest vocabulary prefix of "unaffable" (not "un", which would allow the
  // nicer un ##aff ##able): greedy takes it, then "##ffable" covers the rest.
  EXPECT_EQ(pieces("unaffable", 9), (std::vector<std::string>{"una", "##ffable"}));
  // "unaff": "una" then "##ff" is missing, "##f" too: the whole word is one [UNK].
  EXPECT_EQ(pieces("unaff", 5), (std::vector<std::string>{"[UNK]"}));
  EXPECT_EQ(pieces("ab", 2), (std::vector<std::string>{"a", "##b"}));
  EXPECT_EQ(pieces("ba", 2), (std::vector<std::string>{"[UNK]"}));  // "b" only exists as ##b
  EXPECT_EQ(pieces("éa", 2), (std::vector<std::string>{"é", "##a"}));
}

TEST_F(TextWordPiece, WordOfMoreThan100CharactersIsUnknown) {
  EXPECT_EQ(pieces(std::string(100, 'a'), 100).size(), 100u);  // a ##a ##a ...
  EXPECT_EQ(pieces(std::string(100, 'a'), 100).back(), "##a");
  EXPECT_EQ(pieces(std::string(101, 'a'), 101), (std::vector<std::string>{"[UNK]"}));
  // The limit counts characters, not bytes: 100 é are 200 bytes and still fine.
  std::string accents;
  for (int i = 0; i < 100; ++i) accents += "é";
  EXPECT_EQ(pieces(accents, 100).size(), 100u);
  EXPECT_EQ(pieces(accents + "é", 101), (std::vector<std::string>{"[UNK]"}));
}

TEST_F(TextWordPiece, MaxInputCharsPerWordIsConfigurable) {
  const WordPiece short_words(vocab_, vocab_->find("[UNK]"), 3);
  std::vector<std::int32_t> ids;
  short_words.tokenize("aaa", 3, ids);
  short_words.tokenize("aaaa", 4, ids);
  EXPECT_EQ(ids, (std::vector<std::int32_t>{vocab_->find("a"), vocab_->find("##a"), vocab_->find("##a"),
                                            vocab_->find("[UNK]")}));
}

TEST(TextWordPieceLinear, AHugeWordAgainstLongTokensIsCoveredPieceByPiece) {
  // Tokens of 1,000 bytes and a word of 200,000 characters with no limit on word length: the
  // byte-trie search costs each start at most the longest token, so this is 200 starts of
  // 1,000 bytes, not 200 x 1,000 hash lookups of up to 1,000 bytes each.
  const auto vocab = std::make_shared<const Vocab>(
      std::vector<std::string>{"[UNK]", std::string(1000, 'a'), "##" + std::string(1000, 'a'), "##a"});
  const WordPiece unbounded(vocab, 0, std::size_t{1} << 40);
  std::vector<std::int32_t> ids;
  unbounded.tokenize(std::string(200000, 'a'), 200000, ids);
  ASSERT_EQ(ids.size(), 200u);
  EXPECT_EQ(ids.front(), 1);
  EXPECT_EQ(ids.back(), 2);
}

}  // namespace
}  // namespace shmtrain::text
