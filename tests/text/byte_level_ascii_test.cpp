// ByteLevel's GPT-2 pattern is matched by hand on ASCII text (text/pipeline/byte_level.cpp) and
// by PCRE2 otherwise. The same pattern as a Split pre-tokenizer always runs on PCRE2: RoBERTa's
// fixture tokenizer with ByteLevel(use_regex) against Split(GPT-2's pattern, isolated) then
// ByteLevel(use_regex false) must give the same ids on every string, here random ASCII strings
// built from the characters where the pattern's alternatives meet.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/text/hf_tokenizer.hpp"
#include "support/test_support.hpp"

namespace byte_level_ascii_test {
namespace {

namespace fs = std::filesystem;
using shmtrain::text::HfTokenizer;

fs::path write_variant(const fs::path& dir, const nlohmann::json& pre_tokenizer) {
  nlohmann::json t = nlohmann::json::parse(
      shmtrain::testing::read_file(shmtrain::testing::fixtures_dir() / "tokenizers/roberta_bpe/tokenizer.json"));
  t["pre_tokenizer"] = pre_tokenizer;
  fs::create_directories(dir);
  shmtrain::testing::write_file(dir / "tokenizer.json", t.dump());
  return dir;
}

TEST(ByteLevelAscii, HandMatcherSplitsAsPcre2) {
  const shmtrain::testing::TempDir tmp;
  const HfTokenizer fast = HfTokenizer::load(write_variant(
      tmp / "fast", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}}));
  const nlohmann::json split = {
      {"type", "Split"},
      {"pattern", {{"Regex", R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)"}}},
      {"behavior", "Isolated"},
      {"invert", false}};
  const nlohmann::json byte_level = {
      {"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", false}};
  const HfTokenizer pcre2 =
      HfTokenizer::load(write_variant(tmp / "pcre2", {{"type", "Sequence"}, {"pretokenizers", {split, byte_level}}}));

  const std::vector<std::string> pieces = {"a", "Z", "q", "7", "0", " ", "  ", "\t", "\n", "\r\n", "\v", "\f",
                                           "'", "'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "''",
                                           ".", ",", "!", "-", "$", "_", "~", "\x01", "\x7f", "lo", "ab1"};
  std::mt19937 rng(11);
  int compared = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text;
    const int n = static_cast<int>(rng() % 12);
    for (int k = 0; k < n; ++k) text += pieces[rng() % pieces.size()];
    std::vector<std::int32_t> a, b;
    fast.tokenize(text, a, "fast");
    pcre2.tokenize(text, b, "pcre2");
    ASSERT_EQ(a, b) << "text '" << text << "'";
    ++compared;
  }
  EXPECT_EQ(compared, 20000);
}

}  // namespace
}  // namespace byte_level_ascii_test
