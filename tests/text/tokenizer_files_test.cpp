// Loading a tokenizer from vocab.txt, tokenizer.json and tokenizer_config.json, and the
// precedence of the lower-casing settings (tokenizer_files.hpp).
#include "shmtrain/text/tokenizer_files.hpp"

#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "support/test_support.hpp"
#include "text/vocab_fixture.hpp"

namespace shmtrain::text {
namespace {

using shmtrain::testing::error_of;

using shmtrain::testing::TempDir;
using shmtrain::testing::write_file;
using shmtrain::testing::write_vocab_folder;

// A tokenizer.json as tokenizers writes it for bert-base-cased, cut down to a few tokens.
nlohmann::json bert_tokenizer_json(bool lowercase) {
  nlohmann::json vocab = nlohmann::json::object();
  const auto& tokens = lowercase ? shmtrain::testing::uncased_vocab() : shmtrain::testing::cased_vocab();
  for (std::size_t id = 0; id < tokens.size(); ++id) vocab[tokens[id]] = id;
  nlohmann::json added = nlohmann::json::array();
  for (int id = 0; id < 5; ++id) {
    added.push_back({{"id", id},
                     {"content", tokens[static_cast<std::size_t>(id)]},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  }
  return {{"version", "1.0"},
          {"added_tokens", added},
          {"normalizer",
           {{"type", "BertNormalizer"},
            {"clean_text", true},
            {"handle_chinese_chars", true},
            {"strip_accents", nullptr},
            {"lowercase", lowercase}}},
          {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
          {"model",
           {{"type", "WordPiece"},
            {"unk_token", "[UNK]"},
            {"continuing_subword_prefix", "##"},
            {"max_input_chars_per_word", 100},
            {"vocab", vocab}}}};
}

TEST(TextTokenizerFiles, UncasedVocabularyAloneMeansLowerCasing) {
  TempDir dir;
  const TokenizerSpec spec = load_tokenizer_spec(write_vocab_folder(dir, shmtrain::testing::uncased_vocab()));
  EXPECT_TRUE(spec.normalizer.lowercase);
  EXPECT_TRUE(spec.normalizer.strips_accents());
  EXPECT_EQ(spec.lowercase_origin, "vocab.txt holds no upper-case tokens, so it is read as uncased");
  EXPECT_EQ(spec.source, (dir / "vocab.txt").string());
  EXPECT_EQ(spec.vocab->size(), shmtrain::testing::uncased_vocab().size());
}

TEST(TextTokenizerFiles, CasedVocabularyAloneMeansNoLowerCasing) {
  TempDir dir;
  write_vocab_folder(dir, shmtrain::testing::cased_vocab());
  // Given as a file: tokenizer_config.json is not looked for; the vocabulary decides.
  const TokenizerSpec spec = load_tokenizer_spec(dir / "vocab.txt");
  EXPECT_FALSE(spec.normalizer.lowercase);
  EXPECT_FALSE(spec.normalizer.strips_accents());
  EXPECT_EQ(spec.lowercase_origin,
            "vocab.txt holds upper-case tokens (e.g. \"The\"), so it is read as cased");
}

TEST(TextTokenizerFiles, TokenizerConfigDecidesOverTheVocabulary) {
  TempDir dir;
  write_vocab_folder(dir, shmtrain::testing::cased_vocab());
  write_file(dir / "tokenizer_config.json",
             R"({"do_lower_case": true, "strip_accents": false, "tokenize_chinese_chars": false,
                 "mask_token": {"content": "[MASK]", "special": true}, "additional_special_tokens": ["<ent>"]})");
  const TokenizerSpec spec = load_tokenizer_spec(dir.path());
  EXPECT_TRUE(spec.normalizer.lowercase);
  EXPECT_FALSE(spec.normalizer.strips_accents());
  EXPECT_FALSE(spec.normalizer.handle_chinese_chars);
  EXPECT_EQ(spec.lowercase_origin, "tokenizer_config.json: do_lower_case = true");
  EXPECT_EQ(spec.special.extra, (std::vector<std::string>{"<ent>"}));
}

// transformers 5's spellings: extra_special_tokens (a list, or an object of named tokens) for
// additional_special_tokens, a "backend" key, no special_tokens_map.json.
TEST(TextTokenizerFiles, TransformersFivesExtraSpecialTokensAreRead) {
  TempDir dir;
  write_vocab_folder(dir, shmtrain::testing::cased_vocab());
  write_file(dir / "tokenizer_config.json",
             R"({"backend": "tokenizers", "additional_special_tokens": ["<ent>"],
                 "extra_special_tokens": {"entity_token": "<ent>", "image_token": "<img>"}})");
  EXPECT_EQ(load_tokenizer_spec(dir.path()).special.extra, (std::vector<std::string>{"<ent>", "<img>"}));
  write_file(dir / "tokenizer_config.json", R"({"extra_special_tokens": ["<a>", "<b>"]})");
  EXPECT_EQ(load_tokenizer_spec(dir.path()).special.extra, (std::vector<std::string>{"<a>", "<b>"}));
}

TEST(TextTokenizerFiles, CommandLineOverrideWinsAndStripAccentsFollowsIt) {
  TempDir dir;
  write_vocab_folder(dir, shmtrain::testing::cased_vocab());
  write_file(dir / "tokenizer_config.json", R"({"do_lower_case": false})");
  TokenizerSpec spec = load_tokenizer_spec(dir.path());
  EXPECT_FALSE(spec.normalizer.lowercase);
  override_lowercase(spec, true);
  EXPECT_TRUE(spec.normalizer.lowercase);
  EXPECT_TRUE(spec.normalizer.strips_accents());  // strip_accents unset: follows lower-casing
  EXPECT_EQ(spec.lowercase_origin, "--do_lower_case true");
  override_lowercase(spec, std::nullopt);
  EXPECT_TRUE(spec.normalizer.lowercase);
}

TEST(TextTokenizerFiles, TokenizerJsonGivesVocabularyNormalizerAndAddedTokens) {
  TempDir dir;
  nlohmann::json tokenizer = bert_tokenizer_json(false);
  tokenizer["added_tokens"].push_back({{"id", 999}, {"content", "<ent>"}, {"special", true}});
  write_file(dir / "tokenizer.json", tokenizer.dump());
  write_vocab_folder(dir, {"[UNK]"});  // ignored: tokenizer.json comes first in a folder
  const TokenizerSpec spec = load_tokenizer_spec(dir.path());
  EXPECT_EQ(spec.source, (dir / "tokenizer.json").string());
  EXPECT_FALSE(spec.normalizer.lowercase);
  EXPECT_FALSE(spec.normalizer.strips_accents());
  EXPECT_EQ(spec.lowercase_origin, "tokenizer.json: normalizer lowercase = false");
  ASSERT_EQ(spec.vocab->size(), 1000u);  // holes up to the added token's id 999
  EXPECT_EQ(spec.vocab->find("Café"), 7);
  EXPECT_EQ(spec.vocab->find("<ent>"), 999);
  EXPECT_EQ(spec.vocab->find_continuation("aff"), 19);
  EXPECT_EQ(spec.special.extra.back(), "<ent>");
}

TEST(TextTokenizerFiles, TokenizerConfigOverridesTokenizerJson) {
  TempDir dir;
  write_file(dir / "tokenizer.json", bert_tokenizer_json(true).dump());
  write_file(dir / "tokenizer_config.json", R"({"do_lower_case": false})");
  const TokenizerSpec spec = load_tokenizer_spec(dir.path());
  EXPECT_FALSE(spec.normalizer.lowercase);
  EXPECT_EQ(spec.lowercase_origin, "tokenizer_config.json: do_lower_case = false");
}

TEST(TextTokenizerFiles, NestedTooDeepIsRefusedNamingTheFile) {
  TempDir dir;
  write_file(dir / "tokenizer.json",
             "{\"model\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  EXPECT_EQ(
      error_of([&] { load_tokenizer_spec(dir / "tokenizer.json"); })
          .rfind((dir / "tokenizer.json").string() + ": JSON nests arrays and objects deeper than 512 levels",
                 0),
      0u);
}

TEST(TextTokenizerFiles, IdsBeyondTheListedTokensAndHugeTokensAreRefused) {
  TempDir dir;
  nlohmann::json far = bert_tokenizer_json(true);
  far["model"]["vocab"]["zzz"] = 1 << 30;
  write_file(dir / "far.json", far.dump());
  EXPECT_EQ(error_of([&] { load_tokenizer_spec(dir / "far.json"); }),
            (dir / "far.json").string() +
                ": model.vocab token 'zzz' has id 1073741824; ids are integers from 0 to 4194303");
  nlohmann::json huge = bert_tokenizer_json(true);
  huge["model"]["vocab"][std::string(5000, 'b')] = 1;
  write_file(dir / "huge.json", huge.dump());
  EXPECT_NE(error_of([&] {
              load_tokenizer_spec(dir / "huge.json");
            }).find("(5000 bytes) is longer than 1024 bytes or holds a NUL byte"),
            std::string::npos);
}

TEST(TextTokenizerFiles, WhatIsNotABertTokenizerIsRefused) {
  TempDir dir;
  EXPECT_EQ(error_of([&] { load_tokenizer_spec(dir / "nothing"); }),
            (dir / "nothing").string() +
                " not found: pass --vocab a vocab.txt, a tokenizer.json or a Hugging Face model folder");
  EXPECT_EQ(error_of([&] { load_tokenizer_spec(dir.path()); }),
            "no vocab.txt or tokenizer.json in " + dir.path().string() +
                ": pass --vocab a Hugging Face BERT model folder or the vocabulary file itself");

  nlohmann::json bpe = bert_tokenizer_json(true);
  bpe["model"]["type"] = "BPE";
  write_file(dir / "bpe.json", bpe.dump());
  EXPECT_EQ(
      error_of([&] { load_tokenizer_spec(dir / "bpe.json"); }),
      (dir / "bpe.json").string() +
          ": model type is BPE, not WordPiece: shmtrain tokenizes BERT-style WordPiece vocabularies only");

  nlohmann::json lower_nfkc = bert_tokenizer_json(true);
  lower_nfkc["normalizer"] = {{"type", "NFKC"}};
  write_file(dir / "nfkc.json", lower_nfkc.dump());
  EXPECT_EQ(error_of([&] { load_tokenizer_spec(dir / "nfkc.json"); }),
            (dir / "nfkc.json").string() +
                ": normalizer NFKC is not supported (shmtrain implements BertNormalizer)");

  write_file(dir / "broken.json", "{\"model\": ");
  EXPECT_NE(error_of([&] { load_tokenizer_spec(dir / "broken.json"); }).find("broken.json: not valid JSON"),
            std::string::npos);

  TempDir folder;
  write_vocab_folder(folder, shmtrain::testing::uncased_vocab());
  write_file(folder / "tokenizer_config.json", R"({"do_lower_case": "yes"})");
  EXPECT_EQ(
      error_of([&] { load_tokenizer_spec(folder.path()); }),
      (folder / "tokenizer_config.json").string() + ": do_lower_case must be true or false, got \"yes\"");
}

}  // namespace
}  // namespace shmtrain::text
