// `shmtrain tokenize` through the real binary: JSON on stdout, one-line errors on stderr.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.hpp"
#include "text/vocab_fixture.hpp"

namespace shmtrain::text {
namespace {

using shmtrain::testing::read_file;
using shmtrain::testing::TempDir;
using shmtrain::testing::write_file;

struct CommandResult {
  int exit_code;
  std::string out;
  std::string err;
};

// Runs `shmtrain tokenize <arguments>`; arguments are passed to the shell as written.
CommandResult run_tokenize(const TempDir& dir, const std::string& arguments) {
  const std::string command = shmtrain::testing::shmtrain_binary().string() + " tokenize " + arguments + " >" +
                              (dir / "out.txt").string() + " 2>" + (dir / "err.txt").string();
  const int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(dir / "out.txt"), read_file(dir / "err.txt")};
}

TEST(TextTokenizeCommand, PrintsOneJsonObjectForAPair) {
  TempDir dir;
  shmtrain::testing::write_vocab_folder(dir, shmtrain::testing::uncased_vocab());
  const CommandResult run = run_tokenize(
      dir, "--vocab " + dir.path().string() +
               " --text_a 'The café, [MASK]!' --text_b '每个 cats' --max_seq_length 12 --pad_to_max_length true");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["tokens"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"[CLS]", "the", "cafe", ",", "[MASK]", "!", "[SEP]", "每", "个", "cat", "##s",
                                      "[SEP]"}));
  EXPECT_EQ(json["token_type_ids"].get<std::vector<int>>(), (std::vector<int>{0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(json["attention_mask"].get<std::vector<int>>(), std::vector<int>(12, 1));
  const auto& vocab = shmtrain::testing::uncased_vocab();
  const auto ids = json["input_ids"].get<std::vector<std::size_t>>();
  ASSERT_EQ(ids.size(), 12u);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    ASSERT_LT(ids[i], vocab.size());
    EXPECT_EQ(vocab[ids[i]], json["tokens"][i].get<std::string>()) << "position " << i;
  }
  // The casing decision is reported on stderr.
  EXPECT_NE(run.err.find("do_lower_case true (vocab.txt holds no upper-case tokens"), std::string::npos) << run.err;
}

TEST(TextTokenizeCommand, DoLowerCaseFlagOverridesTheVocabulary) {
  TempDir dir;
  shmtrain::testing::write_vocab_folder(dir, shmtrain::testing::cased_vocab());
  const CommandResult cased = run_tokenize(dir, "--vocab " + (dir / "vocab.txt").string() + " --text_a 'The Café'");
  ASSERT_EQ(cased.exit_code, 0) << cased.err;
  EXPECT_EQ(nlohmann::json::parse(cased.out)["tokens"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"[CLS]", "The", "Café", "[SEP]"}));
  const CommandResult lowered =
      run_tokenize(dir, "--vocab " + (dir / "vocab.txt").string() + " --do_lower_case true --text_a 'The Café'");
  ASSERT_EQ(lowered.exit_code, 0) << lowered.err;
  EXPECT_EQ(nlohmann::json::parse(lowered.out)["tokens"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"[CLS]", "the", "cafe", "[SEP]"}));
}

TEST(TextTokenizeCommand, BadInputIsOneLineAndNonZeroExit) {
  TempDir dir;
  std::vector<std::string> no_unk = shmtrain::testing::uncased_vocab();
  std::erase(no_unk, "[UNK]");
  shmtrain::testing::write_vocab_folder(dir, no_unk);
  const CommandResult missing_unk = run_tokenize(dir, "--vocab " + dir.path().string() + " --text_a hello");
  EXPECT_EQ(missing_unk.exit_code, 1);
  EXPECT_TRUE(missing_unk.out.empty());
  EXPECT_EQ(missing_unk.err, "shmtrain: error: " + (dir / "vocab.txt").string() +
                                 ": the vocabulary has no [UNK] token; a BERT vocabulary needs [CLS], [SEP] "
                                 "and [UNK]: is this a BERT vocab.txt / tokenizer.json?\n");

  TempDir good;
  shmtrain::testing::write_vocab_folder(good, shmtrain::testing::uncased_vocab());
  const CommandResult latin1 = run_tokenize(good, "--vocab " + good.path().string() + " --text_a \"$(printf 'caf\\351')\"");
  EXPECT_EQ(latin1.exit_code, 1);
  EXPECT_EQ(latin1.err,
            "shmtrain: error: text_a: invalid UTF-8 at byte 3 (0xE9): re-encode the input as UTF-8 (e.g. `iconv -f "
            "latin1 -t utf-8`)\n");
}

// A RoBERTa folder (byte-level BPE tokenizer.json): tokens, ids and offsets as Hugging Face's
// tokenizers gives them (tests/fixtures/tokenizers/cases.jsonl has the same input), and
// pre-split words with their word ids.
TEST(TextTokenizeCommand, ARobertaFolderPrintsOffsetsAndWordIds) {
  TempDir dir;
  const std::string folder = (shmtrain::testing::fixtures_dir() / "tokenizers" / "roberta_bpe").string();
  CommandResult run = run_tokenize(dir, "--model " + folder + " --text_a 'Hello world!'");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  nlohmann::json json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["tokens"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"<s>", "H", "ell", "o", "\u0120wor", "ld", "!", "</s>"}));
  EXPECT_EQ(json["input_ids"].get<std::vector<int>>(), (std::vector<int>{0, 76, 415, 115, 400, 450, 37, 2}));
  EXPECT_EQ(json["offsets"].dump(), "[[0,0],[0,1],[1,4],[4,5],[6,9],[9,11],[11,12],[0,0]]");
  EXPECT_NE(run.err.find("model BPE"), std::string::npos) << run.err;

  const std::string prefix = (shmtrain::testing::fixtures_dir() / "tokenizers" / "roberta_bpe_prefix").string();
  run = run_tokenize(dir, "--model " + prefix + " --words Hello world");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["word_ids"].front(), nullptr);
  EXPECT_EQ(json["word_ids"].back(), nullptr);
  EXPECT_EQ(json["word_ids"][1], 0);
  EXPECT_EQ(json["word_ids"][json["word_ids"].size() - 2], 1);
}

TEST(TextTokenizeCommand, ABrokenTokenizerJsonIsOneLineNamingTheKey) {
  TempDir dir;
  const std::string bad = (shmtrain::testing::fixtures_dir() / "tokenizers" / "bad" / "unknown_normalizer_type").string();
  const CommandResult run = run_tokenize(dir, "--model " + bad + " --text_a x");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("tokenizer.json: normalizer.type: unknown normalizer 'NFX'"), std::string::npos) << run.err;
  EXPECT_TRUE(run.out.empty());
}

std::vector<std::string> tokens_of(const CommandResult& run) {
  return nlohmann::json::parse(run.out)["tokens"].get<std::vector<std::string>>();
}

// tokenizers' encode(..., add_special_tokens=False): no [CLS]/[SEP] or <s></s>, a pair's
// texts joined as they are, each with its token type.
TEST(TextTokenizeCommand, AddSpecialTokensFalseLeavesThemOut) {
  TempDir dir;
  shmtrain::testing::write_vocab_folder(dir, shmtrain::testing::uncased_vocab());
  const CommandResult bert = run_tokenize(
      dir, "--vocab " + dir.path().string() + " --text_a 'the cat' --text_b 'cats' --add_special_tokens false");
  ASSERT_EQ(bert.exit_code, 0) << bert.err;
  EXPECT_EQ(tokens_of(bert), (std::vector<std::string>{"the", "cat", "cat", "##s"}));
  EXPECT_EQ(nlohmann::json::parse(bert.out)["token_type_ids"].get<std::vector<int>>(), (std::vector<int>{0, 0, 1, 1}));

  const std::string roberta = (shmtrain::testing::fixtures_dir() / "tokenizers" / "roberta_bpe").string();
  const CommandResult bpe = run_tokenize(dir, "--model " + roberta + " --text_a 'Hello world!' --add_special_tokens false");
  ASSERT_EQ(bpe.exit_code, 0) << bpe.err;
  EXPECT_EQ(tokens_of(bpe), (std::vector<std::string>{"H", "ell", "o", "\u0120wor", "ld", "!"}));
}

// An empty text is a text: Hugging Face's tokenizers give <s></s> for RoBERTa's, <s></s></s>b</s>
// for an empty first text of a pair, and [CLS] [SEP] for BERT's.
TEST(TextTokenizeCommand, AnEmptyTextIsTokenizedNotMissing) {
  TempDir dir;
  const std::string roberta = (shmtrain::testing::fixtures_dir() / "tokenizers" / "roberta_bpe").string();
  CommandResult run = run_tokenize(dir, "--model " + roberta + " --text_a ''");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(tokens_of(run), (std::vector<std::string>{"<s>", "</s>"}));
  run = run_tokenize(dir, "--model " + roberta + " --text_a '' --text_b b");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(tokens_of(run), (std::vector<std::string>{"<s>", "</s>", "</s>", "b", "</s>"}));

  shmtrain::testing::write_vocab_folder(dir, shmtrain::testing::uncased_vocab());
  run = run_tokenize(dir, "--vocab " + dir.path().string() + " --text_a ''");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(tokens_of(run), (std::vector<std::string>{"[CLS]", "[SEP]"}));
  // No text at all is still an error that says what to pass.
  run = run_tokenize(dir, "--vocab " + dir.path().string());
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("--text_a"), std::string::npos) << run.err;
}

// Through the binary, as a shell passes "": BERT's vocab.txt folder encodes the empty text as
// [CLS] [SEP], and max_seq_length 0 (no limit) is what the flag after it says.
TEST(TextTokenizeCommand, AnEmptyTextLeavesTheNextFlagItsValue) {
  const auto vocab = shmtrain::testing::fixtures_dir() / "squad_tiny";
  const shmtrain::testing::CliRun run =
      shmtrain::testing::run_shmtrain("tokenize --model " + vocab.string() + " --text_a '' --max_seq_length 0");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  const nlohmann::json out = nlohmann::json::parse(run.out);
  EXPECT_EQ(out.at("tokens"), (std::vector<std::string>{"[CLS]", "[SEP]"})) << run.out;
  EXPECT_EQ(out.at("input_ids"), (std::vector<int>{6, 7})) << run.out;  // vocab.txt's lines 7 and 8
}


// BERT's vocab.txt is a pipeline like any other: pre-split words get their word ids.
TEST(TextTokenizeCommand, WordsWorkForAVocabTxtFolder) {
  TempDir dir;
  shmtrain::testing::write_vocab_folder(dir, shmtrain::testing::uncased_vocab());
  const CommandResult run = run_tokenize(dir, "--vocab " + dir.path().string() + " --words The cats");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["tokens"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"[CLS]", "the", "cat", "##s", "[SEP]"}));
  EXPECT_EQ(json["word_ids"].dump(), "[null,0,1,1,null]");
}

// The defect that started it: a BERT tokenizer.json folder (bert-base-uncased's shape, no
// vocab.txt beside it) refused --words as "not a tokenizer.json folder". Expected tokens and
// word ids: Hugging Face's tokenizers on the same file (tests/fixtures/tokenizers/cases.jsonl).
TEST(TextTokenizeCommand, WordsWorkForABertTokenizerJsonFolder) {
  TempDir dir;
  std::filesystem::copy_file(shmtrain::testing::fixtures_dir() / "tokenizers" / "bert_wordpiece" / "tokenizer.json",
                             dir / "tokenizer.json");
  const CommandResult run = run_tokenize(dir, "--model " + dir.path().string() + " --words John lives in New York .");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json json = nlohmann::json::parse(run.out);
  EXPECT_EQ(json["tokens"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"[CLS]", "j", "##o", "##h", "##n", "li", "##ve", "##s", "in", "new", "y", "##or",
                                      "##k", ".", "[SEP]"}));
  EXPECT_EQ(json["word_ids"].dump(), "[null,0,0,0,0,1,1,1,2,3,4,4,4,5,null]");
}

}  // namespace
}  // namespace shmtrain::text
