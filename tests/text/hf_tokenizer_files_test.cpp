// Broken tokenizer files (tests/fixtures/tokenizers/bad/, one problem each, written by
// tools/tokenizer_reference/) are refused with an InputError naming the file and what is wrong;
// the valid control loads; the formats a folder may hold are found in AutoTokenizer's order.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"
#include "support/test_support.hpp"

namespace shmtrain::text {
namespace {

namespace fs = std::filesystem;

fs::path bad() { return testing::fixtures_dir() / "tokenizers" / "bad"; }

// What the message must say for each broken folder, beside the file's name.
const std::map<std::string, std::string> kExpected = {
    {"added_token_id_conflict", "added_tokens"},
    {"added_token_id_past_vocab_gap", "added_tokens"},
    {"empty_file", "not valid JSON"},
    {"merge_result_not_in_vocab", "merges["},
    {"merge_string_one_token", "is not two tokens separated by one space"},
    {"merge_token_not_in_vocab", "is not in the vocabulary"},
    {"merges_txt_one_token_line", "merges.txt:"},
    {"merges_txt_three_tokens_line", "merges.txt:"},
    {"merges_txt_unknown_token", "is not in the vocabulary"},
    {"sentencepiece_random_bytes", "not a SentencePiece model"},
    {"sentencepiece_truncated", "not a SentencePiece model"},
    {"split_regex_invalid", "bad regular expression"},
    {"template_unknown_special", "is not among special_tokens"},
    {"truncated_json", "not valid JSON"},
    {"unigram_unk_id_out_of_range", "unk_id"},
    {"unk_token_not_in_vocab", "unk_token"},
    {"unknown_decoder_type", "unknown decoder"},
    {"unknown_model_type", "unknown model 'BPE2'"},
    {"unknown_normalizer_in_sequence", "normalizers[1].type: unknown normalizer"},
    {"unknown_normalizer_type", "unknown normalizer 'NFX'"},
    {"unknown_post_processor_type", "unknown post-processor 'GPTProcessing'"},
    {"unknown_pre_tokenizer_type", "unknown pre-tokenizer 'WhitespaceSplitter'"},
    {"vocab_duplicate_id", "vocab"},
    {"vocab_id_out_of_range", "vocab"},
    {"vocab_json_not_object", "vocab.json"},
    {"wordpiece_vocab_not_object", "vocab"},
};

TEST(HfTokenizerFiles, EveryBrokenFileIsRefusedNamingTheFileAndTheProblem) {
  int folders = 0;
  for (const auto& entry : fs::directory_iterator(bad())) {
    if (!entry.is_directory()) continue;
    const std::string name = entry.path().filename().string();
    if (name == "valid_control") {
      EXPECT_NO_THROW(HfTokenizer::load(entry.path())) << name;
      continue;
    }
    ++folders;
    const auto expected = kExpected.find(name);
    ASSERT_NE(expected, kExpected.end()) << "no expectation for bad/" << name;
    try {
      const HfTokenizer t = HfTokenizer::load(entry.path());
      ADD_FAILURE() << name << " loaded";
    } catch (const InputError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(name), std::string::npos) << name << ": the message does not name the file: " << message;
      EXPECT_NE(message.find(expected->second), std::string::npos) << name << ": " << message;
    }
  }
  EXPECT_EQ(folders, static_cast<int>(kExpected.size()));
}

TEST(HfTokenizerFiles, LoadTokenizerPicksTheClassOfTheFolder) {
  const fs::path fixtures = testing::fixtures_dir() / "tokenizers";
  // Every folder gets the pipeline; BERT's WordPiece tokenizer.json is built from BERT's
  // settings (its casing rules), which the description names.
  const auto bert = load_tokenizer(fixtures / "bert_wordpiece");
  ASSERT_NE(dynamic_cast<const HfTokenizer*>(bert.get()), nullptr);
  EXPECT_TRUE(bert->description().starts_with("WordPiece, ")) << bert->description();
  EXPECT_NE(dynamic_cast<const HfTokenizer*>(load_tokenizer(fixtures / "roberta_bpe").get()), nullptr);
  EXPECT_NE(dynamic_cast<const HfTokenizer*>(load_tokenizer(fixtures / "xlmr_unigram").get()), nullptr);
  EXPECT_NE(dynamic_cast<const HfTokenizer*>(load_tokenizer(fixtures / "bpe_suffix").get()), nullptr);
  EXPECT_THROW(load_tokenizer(fixtures / "roberta_bpe", true), InputError);  // --do_lower_case is BERT's
}

TEST(HfTokenizerFiles, RobertaAndXlmrTemplatesAssembleQuestionAnsweringWindows) {
  const fs::path fixtures = testing::fixtures_dir() / "tokenizers";
  const std::unique_ptr<Tokenizer> roberta = load_tokenizer(fixtures / "roberta_bpe");
  Encoding out;
  const std::vector<std::int32_t> q = {10, 11};
  const std::vector<std::int32_t> c = {20, 21, 22};
  EXPECT_EQ(roberta->assemble(q, std::span<const std::int32_t>(c), out), 5u);  // <s> q q </s> </s> c c c </s>
  EXPECT_EQ(out.input_ids, (std::vector<std::int32_t>{0, 10, 11, 2, 2, 20, 21, 22, 2}));
  EXPECT_EQ(out.token_type_ids, std::vector<std::int32_t>(9, 0));
  EXPECT_EQ(roberta->num_special_tokens(true), 4u);
  EXPECT_EQ(roberta->pad_id(), 1);
  const std::unique_ptr<Tokenizer> bert = load_tokenizer(fixtures / "bert_wordpiece");
  EXPECT_EQ(bert->assemble(q, std::span<const std::int32_t>(c), out), 4u);
  EXPECT_EQ(out.token_type_ids, (std::vector<std::int32_t>{0, 0, 0, 0, 1, 1, 1, 1}));
  const std::unique_ptr<Tokenizer> xlmr = load_tokenizer(fixtures / "xlmr_unigram" / "sentencepiece.bpe.model");
  EXPECT_EQ(xlmr->assemble(q, std::span<const std::int32_t>(c), out), 5u);
  EXPECT_EQ(xlmr->pad_id(), 1);
}

TEST(HfTokenizerFiles, SaveCopiesTheFilesItWasReadFrom) {
  const testing::TempDir dir;
  const fs::path fixtures = testing::fixtures_dir() / "tokenizers";
  const std::unique_ptr<Tokenizer> roberta = load_tokenizer(fixtures / "roberta_bpe");
  roberta->save(dir.path(), 512);
  EXPECT_EQ(testing::read_file(dir.path() / "tokenizer.json"), testing::read_file(fixtures / "roberta_bpe" / "tokenizer.json"));
  EXPECT_TRUE(fs::exists(dir.path() / "tokenizer_config.json"));
  const std::unique_ptr<Tokenizer> again = load_tokenizer(dir.path());
  std::vector<std::int32_t> a, b;
  roberta->tokenize("Hello <mask> world", a, "text");
  again->tokenize("Hello <mask> world", b, "text");
  EXPECT_EQ(a, b);
}

// 1 MB of words and spaces (and a 256 KB word): every regex match, merge and lattice step is
// local, so this takes about two seconds; a whole-text check per match (PCRE2 validating the
// subject at each call, once the case) made it quadratic: 45 s for the BPE alone.
TEST(HfTokenizerFiles, EncodingStaysLinearInTheText) {
  const fs::path fixtures = testing::fixtures_dir() / "tokenizers";
  std::string spaced;
  for (std::size_t i = 0; spaced.size() < (std::size_t{1} << 20); ++i) spaced += i % 7 == 6 ? ' ' : static_cast<char>('a' + i % 26);
  const std::string word(std::size_t{1} << 18, 'q');
  for (const char* name : {"roberta_bpe", "xlmr_unigram"}) {
    const HfTokenizer tokenizer = HfTokenizer::load(fixtures / name);
    EXPECT_GT(tokenizer.encode_text(spaced).size(), spaced.size() / 8) << name;
    EXPECT_GT(tokenizer.encode_text(word).size(), 2u) << name;
  }
}

}  // namespace
}  // namespace shmtrain::text
