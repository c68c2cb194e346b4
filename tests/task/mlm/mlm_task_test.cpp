// run_mlm's data (task/mlm): text lines, group_texts blocks per 1,000 texts with the remainder
// dropped, --line_by_line, the train[:p%] validation split, pre-tokenized rows with labels, the
// metrics, and the errors.
#include <cmath>
#include <string>

#include "shmtrain/task/mlm/mlm_task.hpp"
#include "task/task_fixture.hpp"

namespace shmtrain::task {
// Its own namespace: the unity build puts test files side by side.
namespace mlm_task_test {
namespace {

class MlmData : public DataFiles {
 protected:
  TaskOptions mlm(const std::string& train, std::size_t block) const {
    TaskOptions options = custom(train);
    options.task_name = "mlm";
    options.max_seq_length = block;
    return options;
  }
};

// "the cat sat" -> [CLS] the cat sat [SEP]: 5 tokens per line.
std::string lines(std::size_t n, const std::string& text = "the cat sat") {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += text + "\n";
  return out;
}

TEST_F(MlmData, GroupTextsCutsEachThousandTextsIntoBlocksAndDropsTheirRemainders) {
  // 1,001 lines of 5 tokens: the first 1,000 give 5,000 tokens = 416 blocks of 12 (8 dropped);
  // the last line's 5 tokens make no block.
  write("train.txt", lines(1001));
  const auto task = load(mlm("train.txt", 12), true, false);
  ASSERT_EQ(task->train()->examples.size(), 416u);
  const Example& first = task->train()->examples[0];
  EXPECT_EQ(tokens(first), (Tokens{"[CLS]", "the", "cat", "sat", "[SEP]", "[CLS]", "the", "cat", "sat", "[SEP]",
                                   "[CLS]", "the"}));
  EXPECT_EQ(first.attention_mask, Ids(12, 1));
  EXPECT_EQ(task->target(), Target::kMaskedTokens);
  EXPECT_EQ(task->row_noun(), "blocks");
}

TEST_F(MlmData, LineByLineTruncatesEachNonBlankLine) {
  write("train.txt", "the cat sat on the mat\n\n   \r\nhello world\r\nbert");
  TaskOptions options = mlm("train.txt", 5);
  options.line_by_line = true;
  const auto task = load(options, true, false);
  ASSERT_EQ(task->train()->examples.size(), 3u);
  EXPECT_EQ(tokens(task->train()->examples[0]), (Tokens{"[CLS]", "the", "cat", "sat", "[SEP]"}));
  EXPECT_EQ(tokens(task->train()->examples[1]), (Tokens{"[CLS]", "hello", "world", "[SEP]"}));
  EXPECT_EQ(tokens(task->train()->examples[2]), (Tokens{"[CLS]", "bert", "[SEP]"}));
}

TEST_F(MlmData, ValidatesOnTheFirstPercentOfTrainWithoutAValidationFile) {
  // 30 lines; 5% of 30 = 1.5 rounds to 2 (half to even); blocks of 5 = one line each.
  std::string text;
  for (int i = 0; i < 30; ++i) text += (i < 2 ? "hello world bert\n" : "the cat sat\n");
  write("train.txt", text);
  const auto task = load(mlm("train.txt", 5));
  ASSERT_EQ(task->validation()->examples.size(), 2u);
  EXPECT_EQ(tokens(task->validation()->examples[0])[1], "hello");
  ASSERT_EQ(task->train()->examples.size(), 28u);
  EXPECT_EQ(tokens(task->train()->examples[0])[1], "the");
}

TEST_F(MlmData, ReadsTheTextColumnOfCsvAndJsonAndPreTokenizedRowsWithLabels) {
  write("train.csv", "id,text\n1,the cat sat\n2,\"hello, world\"\n");
  TaskOptions csv = mlm("train.csv", 4);
  csv.line_by_line = true;
  const auto from_csv = load(csv, true, false);
  ASSERT_EQ(from_csv->train()->examples.size(), 2u);
  EXPECT_EQ(tokens(from_csv->train()->examples[1]), (Tokens{"[CLS]", "hello", ",", "[SEP]"}));

  write("rows.jsonl", "{\"input_ids\": [2, 5, 33, 3], \"labels\": [-100, 5, -100, -100]}\n"
                      "{\"input_ids\": [2, 35, 3]}\n");
  const auto tokenized = load(mlm("rows.jsonl", 8), true, false);
  ASSERT_EQ(tokenized->train()->examples.size(), 2u);
  EXPECT_EQ(tokenized->train()->examples[0].token_labels, (Ids{-100, 5, -100, -100}));
  EXPECT_TRUE(tokenized->train()->examples[1].token_labels.empty());  // masked per batch

  write("bad.jsonl", "{\"input_ids\": [2, 5, 3], \"labels\": [1, 2]}\n");
  EXPECT_TRUE(contains(error(mlm("bad.jsonl", 8), true, false), "bad.jsonl:1: \"labels\" must be a list of 3 integers"));
  write("object.jsonl", "{\"text\": {\"a\": 1}}\n");
  EXPECT_TRUE(contains(error(mlm("object.jsonl", 8), true, false), "object.jsonl:1: column 'text' must hold text"));
}

TEST_F(MlmData, ErrorsNameTheProblem) {
  write("short.txt", "the cat\n");
  EXPECT_TRUE(contains(error(mlm("short.txt", 64), true, false), "no training rows"));
  write("train.txt", lines(20));
  TaskOptions options = mlm("train.txt", 5);
  options.mlm_probability = 1.5;
  EXPECT_TRUE(contains(error(options), "--mlm_probability 1.5 is not in [0, 1]"));
  write("train.md", "x");
  EXPECT_TRUE(contains(error(mlm("train.md", 5), true, false), "unsupported file type '.md'"));
}

TEST_F(MlmData, ScoresTheTokenMeanLossAccuracyAndPerplexity) {
  write("train.txt", lines(40));
  const auto task = load(mlm("train.txt", 5));
  // Two rows: losses 3 over 2 tokens (1 right), 1 over 2 tokens (2 right).
  const std::vector<float> values = {3.0f, 2.0f, 1.0f, 1.0f, 2.0f, 2.0f};
  const Metrics metrics = task->score(ModelOutputs{values, 3}, {});
  ASSERT_EQ(metrics.size(), 3u);
  EXPECT_EQ(metrics[0].first, "loss");
  EXPECT_DOUBLE_EQ(metrics[0].second, 1.0);
  EXPECT_DOUBLE_EQ(metrics[1].second, 0.75);
  EXPECT_EQ(metrics[2].first, "perplexity");
  EXPECT_DOUBLE_EQ(metrics[2].second, std::exp(1.0));
}

}  // namespace
}  // namespace mlm_task_test
}  // namespace shmtrain::task
