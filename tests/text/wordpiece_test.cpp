// The WordPiece model (src/text/pipeline/models.hpp) is tested through tokenizers that are
// nothing but it: a vocab.txt folder read cased without accent stripping, whose words reach
// WordPiece as written, and tokenizer.json files for its settings.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/text/hf_tokenizer.hpp"
#include "support/test_support.hpp"
#include "text/vocab_fixture.hpp"

namespace shmtrain::text {
namespace {

using Pieces = std::vector<std::string>;

const std::vector<std::string> kVocab = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "un", "una", "##aff", "##able",
                                         "##ffable", "a", "##a", "é", "##é", "##b"};

// A tokenizer.json of WordPiece alone (split on whitespace) over `tokens`.
HfTokenizer wordpiece_json(const testing::TempDir& dir, const std::vector<std::string>& tokens,
                           std::int64_t max_input_chars_per_word) {
  nlohmann::json vocab = nlohmann::json::object();
  for (std::size_t i = 0; i < tokens.size(); ++i) vocab[tokens[i]] = i;
  const nlohmann::json j = {{"model",
                             {{"type", "WordPiece"},
                              {"vocab", vocab},
                              {"unk_token", "[UNK]"},
                              {"continuing_subword_prefix", "##"},
                              {"max_input_chars_per_word", max_input_chars_per_word}}},
                            {"pre_tokenizer", {{"type", "WhitespaceSplit"}}}};
  testing::write_file(dir / "tokenizer.json", j.dump());
  return HfTokenizer::load(dir / "tokenizer.json");
}

class TextWordPiece : public ::testing::Test {
 protected:
  TextWordPiece() : tokenizer_(load()) {}

  HfTokenizer load() {
    testing::write_vocab_folder(dir_, kVocab);
    testing::write_file(dir_ / "tokenizer_config.json", R"({"do_lower_case": false, "strip_accents": false})");
    return HfTokenizer::load_bert(dir_.path());
  }

  // Both encodes: the ids-only path and the steps one by one must agree.
  Pieces pieces(const std::string& word, std::size_t /*chars*/) const {
    std::vector<std::int32_t> ids;
    tokenizer_.tokenize(word, ids, "word");
    EXPECT_EQ(ids, tokenizer_.encode_text(word, std::nullopt, false).ids) << word;
    return tokenizer_.tokens(ids);
  }

  testing::TempDir dir_;
  HfTokenizer tokenizer_;
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

TEST(TextWordPieceJson, MaxInputCharsPerWordIsConfigurable) {
  testing::TempDir dir;
  const HfTokenizer short_words = wordpiece_json(dir, kVocab, 3);
  EXPECT_EQ(short_words.encode_text("aaa aaaa", std::nullopt, false).tokens, (Pieces{"a", "##a", "##a", "[UNK]"}));
}

TEST(TextWordPieceLinear, AHugeWordAgainstLongTokensIsCoveredPieceByPiece) {
  // Tokens of 1,000 bytes and a word of 200,000 characters with no limit on word length: the
  // byte-trie search costs each start at most the longest token, so this is 200 starts of
  // 1,000 bytes, not 200 x 1,000 hash lookups of up to 1,000 bytes each.
  testing::TempDir dir;
  const HfTokenizer unbounded =
      wordpiece_json(dir, {"[UNK]", std::string(1000, 'a'), "##" + std::string(1000, 'a'), "##a"}, std::int64_t{1} << 40);
  std::vector<std::int32_t> ids;
  unbounded.tokenize(std::string(200000, 'a'), ids, "word");
  ASSERT_EQ(ids.size(), 200u);
  EXPECT_EQ(ids.front(), 1);
  EXPECT_EQ(ids.back(), 2);
}

}  // namespace
}  // namespace shmtrain::text
