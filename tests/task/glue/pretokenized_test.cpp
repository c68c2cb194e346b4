// Pre-tokenized JSON Lines: ids as given, never truncated, defaults for the optional arrays.
#include <gtest/gtest.h>

#include "task/task_fixture.hpp"

namespace shmtrain::task {
namespace {

class DataPretokenized : public DataFiles {};

TEST_F(DataPretokenized, RowsAsGivenWithDefaults) {
  write("train.jsonl",
        "{\"input_ids\": [2, 5, 3, 6, 3], \"token_type_ids\": [0, 0, 0, 1, 1], \"attention_mask\": [1, 1, 1, "
        "1, 0], "
        "\"label\": 1}\n"
        "{\"input_ids\": [2, 7, 3], \"label\": 0}\n");
  write("dev.json", "{\"input_ids\": [2, 3], \"label\": 1}\n");
  const auto data = load(custom("train.jsonl", "dev.json"));
  EXPECT_EQ(data->labels().names, (Tokens{"0", "1"}));
  ASSERT_EQ(data->train()->examples.size(), 2u);
  const Example& first = data->train()->examples[0];
  EXPECT_EQ(first.input_ids, (Ids{2, 5, 3, 6, 3}));
  EXPECT_EQ(first.token_type_ids, (Ids{0, 0, 0, 1, 1}));
  EXPECT_EQ(first.attention_mask, (Ids{1, 1, 1, 1, 0}));
  EXPECT_EQ(first.label, 1);
  const Example& second = data->train()->examples[1];
  EXPECT_EQ(second.token_type_ids, (Ids{0, 0, 0}));
  EXPECT_EQ(second.attention_mask, (Ids{1, 1, 1}));
  EXPECT_EQ(second.label, 0);
  EXPECT_EQ(data->validation()->examples[0].input_ids, (Ids{2, 3}));
}

TEST_F(DataPretokenized, FloatLabelsAreARegression) {
  write("train.jsonl", "{\"input_ids\": [2, 3], \"label\": 0.25}\n{\"input_ids\": [2, 3], \"label\": 4}\n");
  const auto data = load(custom("train.jsonl"), true, false);
  EXPECT_TRUE(data->labels().regression);
  EXPECT_EQ(data->train()->examples[0].target, 0.25f);
}

TEST_F(DataPretokenized, BadRowsNameTheLine) {
  const auto first = std::string("{\"input_ids\": [2, 3], \"label\": 0}\n");
  struct Case {
    std::string row;
    std::string message;
  };
  for (const Case& c : {
           Case{"{\"input_ids\": [2, 5, 3], \"token_type_ids\": [0, 0], \"label\": 1}",
                ":2: token_type_ids has 2 values, input_ids 3; they must be as long"},
           Case{"{\"input_ids\": [2, 5, 3], \"attention_mask\": [1, 1, 1, 1], \"label\": 1}",
                ":2: attention_mask has 4 values, input_ids 3; they must be as long"},
           Case{"{\"input_ids\": [2, 5, 3], \"attention_mask\": [1, 2, 1], \"label\": 1}",
                ":2: attention_mask[1] = 2 is not an integer in [0, 1]"},
           Case{"{\"input_ids\": [2, -5, 3], \"label\": 1}",
                ":2: input_ids[1] = -5 is not an integer in [0, 2147483647]"},
           Case{"{\"input_ids\": [2, 1.5], \"label\": 1}",
                ":2: input_ids[1] = 1.5 is not an integer in [0, 2147483647]"},
           Case{"{\"input_ids\": \"2 3\", \"label\": 1}",
                ":2: \"input_ids\" must be an array of integers, found string"},
           Case{"{\"input_ids\": [], \"label\": 1}", ":2: input_ids is empty"},
           Case{"{\"token_type_ids\": [0], \"label\": 1}", ":2: no \"input_ids\" (the first row has them)"},
           Case{"{\"input_ids\": [2, 3]}", ":2: no \"label\" key"},
           Case{"{\"input_ids\": [2, 3], \"label\": 1", ":2: not valid JSON: "},
       }) {
    SCOPED_TRACE(c.row);
    write("train.jsonl", first + c.row + "\n");
    EXPECT_TRUE(contains(error(custom("train.jsonl"), true, false), path("train.jsonl") + c.message));
  }
}

TEST_F(DataPretokenized, LongRowsAreAnErrorNotTruncated) {
  write("train.jsonl",
        "{\"input_ids\": [2, 3], \"label\": 0}\n{\"input_ids\": [2, 5, 6, 7, 3], \"label\": 0}\n");
  TaskOptions options = custom("train.jsonl");
  options.max_seq_length = 4;
  EXPECT_EQ(error(options, true, false),
            path("train.jsonl") +
                ":2: 5 tokens, more than --max_seq_length 4; pre-tokenized rows are not truncated: "
                "shorten them or raise --max_seq_length");
  options.max_seq_length = 5;
  EXPECT_EQ(load(options, true, false)->train()->examples[1].input_ids.size(), 5u);
}

TEST_F(DataPretokenized, BothFilesInTheSameForm) {
  write("train.jsonl", "{\"input_ids\": [2, 3], \"label\": 0}\n");
  write("dev.jsonl", "{\"text\": \"the\", \"label\": 0}\n");
  EXPECT_EQ(error(custom("train.jsonl", "dev.jsonl")), path("dev.jsonl") + ": is text but " +
                                                           path("train.jsonl") +
                                                           " is pre-tokenized: give both files in the "
                                                           "same form");
}

}  // namespace
}  // namespace shmtrain::task
