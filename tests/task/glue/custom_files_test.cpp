// The user's own files as run_glue.py reads them: CSV, TSV and JSON Lines, the choice of
// text columns, and the label rules.
#include <gtest/gtest.h>

#include "task/task_fixture.hpp"

namespace shmtrain::task {
namespace {

class DataCustom : public DataFiles {};

TEST_F(DataCustom, CsvUnquotesFieldsAndKeepsEmbeddedNewlines) {
  write("train.csv",
        "sentence1,sentence2,label\r\n"
        "\"the \"\"cat\"\"\",\"on, the\nmat\",1\r\n"  // lines 2-3
        "hello,world,0\r\n");
  write("dev.csv", "label,sentence2,sentence1\n0,the cat,hello\n");
  const auto data = load(custom("train.csv", "dev.csv"));
  EXPECT_EQ(data->name(), "");
  EXPECT_EQ(data->labels().names, (Tokens{"0", "1"}));
  ASSERT_EQ(data->train()->examples.size(), 2u);
  // "" is one quote ([UNK] here); the quoted comma and line break are text.
  EXPECT_EQ(tokens(data->train()->examples[0]),
            (Tokens{"[CLS]", "the", "[UNK]", "cat", "[UNK]", "[SEP]", "on", ",", "the", "mat", "[SEP]"}));
  EXPECT_EQ(data->train()->examples[0].label, 1);
  EXPECT_EQ(data->train()->examples[1].label, 0);
  // Columns are found by name in the validation file.
  EXPECT_EQ(tokens(data->validation()->examples[0]),
            (Tokens{"[CLS]", "hello", "[SEP]", "the", "cat", "[SEP]"}));
}

TEST_F(DataCustom, CsvErrorsNameTheLineWhereTheRecordStarts) {
  write("train.csv",
        "sentence1,sentence2,label\n"
        "\"a\nb\nc\",d,1\n"  // lines 2-4
        "hello,0\n");        // line 5
  EXPECT_EQ(
      error(custom("train.csv"), true, false),
      path("train.csv") + ":5: expected 3 comma-separated fields (sentence1, sentence2, label), found 2");
  write("train.csv", "text,label\nhello,1\n\"the cat,0\nthe mat,1\n");
  EXPECT_EQ(error(custom("train.csv"), true, false),
            path("train.csv") + ":3: a quoted field opened on this line is never closed");
  write("train.csv", "text,label\n\"the\" cat,1\n");
  EXPECT_TRUE(contains(error(custom("train.csv"), true, false),
                       path("train.csv") + ":2: unexpected text after a closing quote"));
}

TEST_F(DataCustom, CsvBlankLinesAreSkippedAndQuotesInsidePlainFieldsAreText) {
  write("train.csv", "text,label\n\nthe \"cat\",1\n\n");
  const auto data = load(custom("train.csv"), true, false);
  ASSERT_EQ(data->train()->examples.size(), 1u);
  EXPECT_EQ(tokens(data->train()->examples[0]), (Tokens{"[CLS]", "the", "[UNK]", "cat", "[UNK]", "[SEP]"}));
}

TEST_F(DataCustom, TextColumnsFollowRunGlue) {
  // Without sentence1/sentence2: the first two columns other than label, in header order.
  write("train.csv", "idx,label,premise,hypothesis\nthe,0,cat,mat\n");
  EXPECT_EQ(tokens(load(custom("train.csv"), true, false)->train()->examples[0]),
            (Tokens{"[CLS]", "the", "[SEP]", "cat", "[SEP]"}));
  // One text column: single sentences.
  write("train.tsv", "label\treview\n1\tthe \"cat\"\n");
  EXPECT_EQ(tokens(load(custom("train.tsv"), true, false)->train()->examples[0]),
            (Tokens{"[CLS]", "the", "[UNK]", "cat", "[UNK]", "[SEP]"}));
  write("train.csv", "label\n1\n");
  EXPECT_EQ(error(custom("train.csv"), true, false),
            path("train.csv") + ": no text column: only 'label' (columns: label)");
}

TEST_F(DataCustom, JsonLinesUseTheFirstObjectsKeyOrder) {
  write("train.jsonl",
        "{\"review\": \"the cat\", \"label\": \"pos\", \"title\": \"hello\"}\n"
        "\n"
        "{\"title\": \"world\", \"label\": \"neg\", \"review\": \"the mat\", \"extra\": 1}\n");
  const auto data = load(custom("train.jsonl"), true, false);
  EXPECT_EQ(data->labels().names, (Tokens{"neg", "pos"}));
  ASSERT_EQ(data->train()->examples.size(), 2u);
  EXPECT_EQ(tokens(data->train()->examples[0]), (Tokens{"[CLS]", "the", "cat", "[SEP]", "hello", "[SEP]"}));
  EXPECT_EQ(data->train()->examples[0].label, 1);
  EXPECT_EQ(tokens(data->train()->examples[1]), (Tokens{"[CLS]", "the", "mat", "[SEP]", "world", "[SEP]"}));
  EXPECT_EQ(data->train()->examples[1].label, 0);
}

TEST_F(DataCustom, JsonLinesNestedTooDeepIsRefusedNamingTheLine) {
  write("train.jsonl", "{\"text\": \"a\", \"label\": 1}\n{\"text\": " + std::string(100000, '[') +
                           std::string(100000, ']') + "}\n");
  EXPECT_TRUE(contains(error(custom("train.jsonl"), true, false),
                       path("train.jsonl") + ":2: JSON nests arrays and objects deeper than 512 levels"));
}

TEST_F(DataCustom, JsonLinesErrorsNameTheLine) {
  write("train.jsonl", "{\"text\": \"a\", \"label\": 1}\n\n{\"text\": \"b\", \"label\": 1,}\n");
  EXPECT_TRUE(
      contains(error(custom("train.jsonl"), true, false), path("train.jsonl") + ":3: not valid JSON: "));
  write("train.json", "[{\"text\": \"a\", \"label\": 1}]\n");
  EXPECT_EQ(error(custom("train.json"), true, false),
            path("train.json") + ":1: expected one JSON object per line (JSON Lines), found array");
  write("train.jsonl", "{\"text\": \"a\", \"label\": 1}\n{\"text\": 5, \"label\": 1}\n");
  EXPECT_EQ(error(custom("train.jsonl"), true, false),
            path("train.jsonl") + ":2: column 'text' is a number; expected a string");
  write("train.jsonl", "{\"text\": \"a\", \"label\": 1}\n{\"label\": 1}\n");
  EXPECT_EQ(error(custom("train.jsonl"), true, false),
            path("train.jsonl") + ":2: column 'text' is missing; expected a string");
  write("train.jsonl", "{\"text\": \"a\", \"label\": 1}\n{\"text\": \"b\", \"label\": null}\n");
  EXPECT_EQ(error(custom("train.jsonl"), true, false), path("train.jsonl") + ":2: label is null");
  write("train.jsonl", "{\"text\": \"a\", \"label\": 1}\n{\"text\": \"\\u00e9\", \"label\": 0}\n");
  EXPECT_EQ(load(custom("train.jsonl"), true, false)->train()->examples.size(), 2u);
  write("train.jsonl", "{\"text\": \"a\", \"label\": 1}\n{\"text\": \"\xC3\", \"label\": 0}\n");
  EXPECT_TRUE(
      contains(error(custom("train.jsonl"), true, false), path("train.jsonl") + ":2: not valid JSON"));
}

TEST_F(DataCustom, IntegerLabelsSortNumerically) {
  write("train.csv", "text,label\nthe,10\ncat,2\nsat,1\nmat,2\n");
  write("dev.csv", "text,label\nthe,+2\ncat,7\n");
  TaskOptions options = custom("train.csv", "dev.csv");
  EXPECT_EQ(error(options), path("dev.csv") + ":3: label '7' is not one of the training labels (1, 2, 10)");
  const auto data = load(options, true, false);
  EXPECT_EQ(data->labels().names, (Tokens{"1", "2", "10"}));
  std::vector<std::int32_t> labels;
  for (const Example& e : data->train()->examples) labels.push_back(e.label);
  EXPECT_EQ(labels, (Ids{2, 1, 0, 1}));
  write("dev.csv", "text,label\nthe,+2\n");
  EXPECT_EQ(load(options)->validation()->examples[0].label, 1);
}

TEST_F(DataCustom, StringLabelsSortAsText) {
  write("train.jsonl",
        "{\"text\": \"a\", \"label\": \"b\"}\n{\"text\": \"a\", \"label\": \"B\"}\n"
        "{\"text\": \"a\", \"label\": 10}\n{\"text\": \"a\", \"label\": \"9\"}\n");
  const auto data = load(custom("train.jsonl"), true, false);
  EXPECT_EQ(data->labels().names, (Tokens{"10", "9", "B", "b"}));
  EXPECT_EQ(data->labels().id_of("b"), 3);
  EXPECT_EQ(data->labels().id_of("c"), std::nullopt);
}

TEST_F(DataCustom, FractionalNumbersMakeARegression) {
  write("train.jsonl", "{\"text\": \"a\", \"label\": 1}\n{\"text\": \"b\", \"label\": 2.5}\n");
  write("dev.jsonl", "{\"text\": \"a\", \"label\": 4}\n{\"text\": \"b\", \"label\": \"x\"}\n");
  EXPECT_EQ(error(custom("train.jsonl", "dev.jsonl")),
            path("dev.jsonl") + ":2: label 'x' is not a number (the training labels are regression targets)");
  const auto data = load(custom("train.jsonl", "dev.jsonl"), true, false);
  EXPECT_TRUE(data->labels().regression);
  EXPECT_TRUE(data->labels().names.empty());
  EXPECT_EQ(data->train()->examples[0].target, 1.0f);
  EXPECT_EQ(data->train()->examples[1].target, 2.5f);
  // A JSON 1.0 is a float; CSV "0.5" too.
  write("train.jsonl", "{\"text\": \"a\", \"label\": 1.0}\n{\"text\": \"b\", \"label\": 0}\n");
  EXPECT_TRUE(load(custom("train.jsonl"), true, false)->labels().regression);
  write("train.csv", "text,label\na,0.5\nb,1\n");
  EXPECT_TRUE(load(custom("train.csv"), true, false)->labels().regression);
  write("train.csv", "text,label\na,0.5\nb,high\n");
  EXPECT_EQ(load(custom("train.csv"), true, false)->labels().names, (Tokens{"0.5", "high"}));
}

TEST_F(DataCustom, LabelProblems) {
  write("train.csv", "sentence1,sentence2\na,b\n");
  EXPECT_EQ(error(custom("train.csv"), true, false),
            path("train.csv") +
                ": no column 'label' (columns: sentence1, sentence2); run_glue reads the labels from "
                "a column named label");
  write("train.csv", "text,label\na,1\nb,\n");
  EXPECT_EQ(error(custom("train.csv"), true, false), path("train.csv") + ":3: empty label");
  write("train.jsonl", "{\"text\": \"a\", \"label\": 1}\n{\"text\": \"b\"}\n");
  EXPECT_EQ(error(custom("train.jsonl"), true, false), path("train.jsonl") + ":2: no \"label\" key");
}

TEST_F(DataCustom, ValidationNeedsTheTrainColumns) {
  write("train.csv", "sentence1,sentence2,label\na,b,1\n");
  write("dev.csv", "sentence1,label\na,1\n");
  EXPECT_EQ(error(custom("train.csv", "dev.csv")),
            path("dev.csv") +
                ": no column 'sentence2' (columns: sentence1, label); the train file has it, so the "
                "text columns are sentence1, sentence2");
}

TEST_F(DataCustom, EmptyFilesAndUnknownTypes) {
  write("train.csv", "");
  EXPECT_TRUE(contains(error(custom("train.csv"), true, false), path("train.csv") + ": the file is empty"));
  write("train.csv", "text,label\n");
  EXPECT_TRUE(contains(error(custom("train.csv"), true, false),
                       path("train.csv") + ": no rows after the header line"));
  write("train.jsonl", "\n  \n");
  EXPECT_TRUE(contains(error(custom("train.jsonl"), true, false), path("train.jsonl") + ": no rows"));
  write("train.txt", "a\n");
  EXPECT_EQ(error(custom("train.txt"), true, false),
            path("train.txt") +
                ": unsupported file type '.txt'; --train_file takes a .csv, .tsv, .json, .jsonl or .parquet file");
  EXPECT_TRUE(contains(error(custom("absent.csv"), true, false),
                       path("absent.csv") + ": no such file; expected the --train_file"));
}

TEST_F(DataCustom, TrainLabelsAreReadForEvaluationAlone) {
  write("train.csv", "text,label\nthe,b\ncat,a\n");
  write("dev.csv", "text,label\nmat,b\n");
  const auto data = load(custom("train.csv", "dev.csv"), false, true);
  EXPECT_FALSE(data->train());
  EXPECT_EQ(data->labels().names, (Tokens{"a", "b"}));
  EXPECT_EQ(data->validation()->examples[0].label, 1);
}

TEST_F(DataCustom, MaxSamplesKeepTheFirstRowsButLabelsComeFromAll) {
  write("train.csv", "text,label\nthe,0\ncat,1\nsat,2\n");
  TaskOptions options = custom("train.csv");
  options.max_train_samples = 1;
  const auto data = load(options, true, false);
  EXPECT_EQ(data->train()->examples.size(), 1u);
  EXPECT_EQ(data->labels().names, (Tokens{"0", "1", "2"}));
}

}  // namespace
}  // namespace shmtrain::task
