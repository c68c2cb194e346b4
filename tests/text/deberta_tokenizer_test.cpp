// DeBERTa-v3's tokenizer files (spm.model + tokenizer_config.json, no tokenizer.json) against
// transformers' slow DebertaV2Tokenizer on tests/fixtures/tokenizers/deberta_cases.json (a
// port of tokenization_deberta_v2.py over python3-sentencepiece, tools/tokenizer_reference/
// make_deberta_cases.py): texts and pairs, truncation under each strategy, unknown pieces,
// [MASK] written in the text and its id (after the model's pieces), with do_lower_case and
// split_by_punct on and off. Where transformers logged an error and cut nothing (a truncation
// that cannot be met), shmtrain refuses the input, as the fast tokenizers do.
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"
#include "support/test_support.hpp"

namespace shmtrain::text {
// Its own namespace: the unity build puts test files side by side.
namespace deberta_tokenizer_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json read_cases() {
  std::ifstream in(testing::fixtures_dir() / "tokenizers" / "deberta_cases.json");
  return json::parse(in);
}

// A model folder with the fixture's spm.model and the config's tokenizer_config.json.
fs::path folder_for(const testing::TempDir& dir, const std::string& name, const json& config) {
  const fs::path folder = dir.path() / name;
  fs::create_directories(folder);
  fs::copy_file(testing::fixtures_dir() / "tokenizers" / "deberta_spm" / "spm.model", folder / "spm.model");
  std::ofstream(folder / "tokenizer_config.json") << config.dump();
  return folder;
}

Truncation truncation_of(const json& c) {
  Truncation t;
  if (c.at("truncation").is_null()) return t;
  t.max_length = c.at("max_length").get<std::size_t>();
  const std::string strategy = c.at("truncation");
  t.strategy = strategy == "only_first"    ? TruncationStrategy::kOnlyFirst
               : strategy == "only_second" ? TruncationStrategy::kOnlySecond
                                           : TruncationStrategy::kLongestFirst;
  return t;
}

TEST(DebertaTokenizer, MatchesDebertaV2TokenizerOnEveryCase) {
  const json all = read_cases();
  const testing::TempDir dir;
  std::map<std::string, std::unique_ptr<HfTokenizer>> tokenizers;
  for (const auto& [name, config] : all.at("configs").items()) {
    tokenizers[name] = std::make_unique<HfTokenizer>(HfTokenizer::load(folder_for(dir, name, config)));
  }
  int checked = 0, refused = 0;
  for (const json& c : all.at("cases")) {
    const HfTokenizer& tok = *tokenizers.at(c.at("config").get<std::string>());
    const std::string text = c.at("text");
    std::optional<std::string> pair;
    if (!c.at("text_pair").is_null()) pair = c.at("text_pair").get<std::string>();
    const std::string where = c.at("config").get<std::string>() + ": " + c.dump();
    if (c.value("truncation_error", false)) {
      EXPECT_THROW(tok.encode_text(text, pair, true, truncation_of(c)), InputError) << where;
      ++refused;
      continue;
    }
    const TokenizedText t = tok.encode_text(text, pair, true, truncation_of(c));
    EXPECT_EQ(t.ids, c.at("input_ids").get<std::vector<std::int32_t>>()) << where;
    EXPECT_EQ(t.type_ids, c.at("token_type_ids").get<std::vector<std::int32_t>>()) << where;
    // Every piece's offsets lie inside the text (the fast form's offsets; the slow one has none).
    for (std::size_t i = 0; i < t.size(); ++i) {
      EXPECT_LE(t.offsets[i].begin, t.offsets[i].end) << where;
    }
    ++checked;
  }
  EXPECT_GT(checked, 500);
  EXPECT_GT(refused, 0);
}

TEST(DebertaTokenizer, MaskComesAfterThePiecesAndSpecialsKeepTheModelsIds) {
  const json all = read_cases();
  const testing::TempDir dir;
  const HfTokenizer tok = HfTokenizer::load(folder_for(dir, "plain", all.at("configs").at("plain")));
  const std::int32_t mask = all.at("mask_id");
  EXPECT_EQ(mask, all.at("spm_pieces").get<std::int32_t>());
  const TokenizedText t = tok.encode_text("Paris is the [MASK] of France.");
  EXPECT_EQ(t.ids.front(), 1);  // [CLS]
  EXPECT_EQ(t.ids.back(), 2);   // [SEP]
  EXPECT_NE(std::find(t.ids.begin(), t.ids.end(), mask), t.ids.end());
  EXPECT_EQ(tok.token(mask), "[MASK]");
  EXPECT_EQ(tok.token(0), "[PAD]");
  EXPECT_EQ(tok.token(3), "[UNK]");
}

TEST(DebertaTokenizer, ATokenizerJsonBesideSpmModelWins) {
  const testing::TempDir dir;
  const fs::path folder = folder_for(dir, "both", json::object());
  fs::copy_file(testing::fixtures_dir() / "tokenizers" / "roberta_bpe" / "tokenizer.json",
                folder / "tokenizer.json");
  const HfTokenizer tok = HfTokenizer::load(folder);
  EXPECT_EQ(tok.encode_text("hello").ids.front(), 0);  // RoBERTa's <s>, not DeBERTa's [CLS] 1
}

TEST(DebertaTokenizer, AModelWithoutDebertasSpecialsIsRefusedNamingThePiece) {
  const testing::TempDir dir;
  const fs::path folder = dir.path() / "xlmr";
  fs::create_directories(folder);
  fs::copy_file(testing::fixtures_dir() / "tokenizers" / "xlmr_unigram" / "sentencepiece.bpe.model",
                folder / "spm.model");
  try {
    HfTokenizer::load(folder);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("spm.model: the SentencePiece model has no '[PAD]' piece"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace deberta_tokenizer_test
}  // namespace shmtrain::text
