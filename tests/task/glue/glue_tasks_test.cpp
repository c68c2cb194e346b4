// GLUE's distributed TSV files: each task's columns and labels, and the ways a file can be
// wrong.
#include <gtest/gtest.h>

#include "task/task_fixture.hpp"

namespace shmtrain::task {
namespace {

class DataGlue : public DataFiles {};

const char* const kMrpcHeader = "Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n";

TEST_F(DataGlue, MrpcPairsAndLabels) {
  write("train.tsv",
        std::string(kMrpcHeader) + "1\t11\t12\tthe cat sat\ton the mat\n0\t13\t14\thello\tworld\n");
  write("dev.tsv", std::string(kMrpcHeader) + "0\t15\t16\tthe mat\tthe cat\n");
  const auto data = load(glue("mrpc"));
  EXPECT_EQ(data->name(), "mrpc");
  EXPECT_FALSE(data->labels().regression);
  EXPECT_EQ(data->labels().names, (Tokens{"not_equivalent", "equivalent"}));
  ASSERT_TRUE(data->train() && data->validation());
  EXPECT_EQ(data->train()->source, path("train.tsv"));
  ASSERT_EQ(data->train()->examples.size(), 2u);
  const Example& first = data->train()->examples[0];
  EXPECT_EQ(tokens(first), (Tokens{"[CLS]", "the", "cat", "sat", "[SEP]", "on", "the", "mat", "[SEP]"}));
  EXPECT_EQ(first.token_type_ids, (Ids{0, 0, 0, 0, 0, 1, 1, 1, 1}));
  EXPECT_EQ(first.attention_mask, Ids(9, 1));
  EXPECT_EQ(first.label, 1);
  EXPECT_EQ(data->train()->examples[1].label, 0);
  ASSERT_EQ(data->validation()->examples.size(), 1u);
  EXPECT_EQ(tokens(data->validation()->examples[0]),
            (Tokens{"[CLS]", "the", "mat", "[SEP]", "the", "cat", "[SEP]"}));
}

TEST_F(DataGlue, ColumnsAreFoundByHeaderNameInAnyOrder) {
  write("train.tsv", "label\tsentence\n1\thello world\n0\tthe cat\n");
  const auto data = load(glue("SST2"), true, false);
  EXPECT_EQ(data->name(), "sst2");
  EXPECT_EQ(data->labels().names, (Tokens{"negative", "positive"}));
  EXPECT_FALSE(data->validation());
  ASSERT_EQ(data->train()->examples.size(), 2u);
  EXPECT_EQ(tokens(data->train()->examples[0]), (Tokens{"[CLS]", "hello", "world", "[SEP]"}));
  EXPECT_EQ(data->train()->examples[0].label, 1);
  EXPECT_EQ(data->train()->examples[1].label, 0);
}

// --do_predict: GLUE's test.tsv (an index, the task's text columns, no labels; CoLA's has a
// header there), read beside train.tsv and dev.tsv.
TEST_F(DataGlue, TestSplitsHaveAHeaderAndNoLabels) {
  write("train.tsv", std::string(kMrpcHeader) + "1\t11\t12\tthe cat sat\ton the mat\n");
  write("test.tsv", "index\t#1 ID\t#2 ID\t#1 String\t#2 String\n0\t1\t2\tthe mat\tthe cat\n1\t3\t4\thello\tworld\n");
  auto data = load_task(glue("mrpc"), tokenizer_, true, false, true);
  ASSERT_TRUE(data->test());
  ASSERT_EQ(data->test()->examples.size(), 2u);
  EXPECT_EQ(tokens(data->test()->examples[0]), (Tokens{"[CLS]", "the", "mat", "[SEP]", "the", "cat", "[SEP]"}));
  write("train.tsv", "gj04\t1\t\tthe cat sat .\n");
  write("test.tsv", "index\tsentence\n0\tthe cat\n");
  data = load_task(glue("cola"), tokenizer_, true, false, true);
  EXPECT_EQ(tokens(data->test()->examples[0]), (Tokens{"[CLS]", "the", "cat", "[SEP]"}));
}

TEST_F(DataGlue, ColaHasNoHeader) {
  write("train.tsv", "gj04\t1\t\tthe cat sat .\ngj04\t0\t*\tcat the sat\n");
  write("dev.tsv", "clc95\t1\t\thello\n");
  const auto data = load(glue("cola"));
  EXPECT_EQ(data->labels().names, (Tokens{"unacceptable", "acceptable"}));
  ASSERT_EQ(data->train()->examples.size(), 2u);
  EXPECT_EQ(tokens(data->train()->examples[0]), (Tokens{"[CLS]", "the", "cat", "sat", ".", "[SEP]"}));
  EXPECT_EQ(data->train()->examples[0].label, 1);
  EXPECT_EQ(data->train()->examples[1].label, 0);
  EXPECT_EQ(data->validation()->examples.size(), 1u);
  // Without a header the count of fields is CoLA's four.
  write("dev.tsv", "clc95\t1\thello\n");
  EXPECT_EQ(error(glue("cola")), path("dev.tsv") +
                                     ":1: expected 4 tab-separated fields (source, label, original "
                                     "annotation, sentence), found 3");
}

TEST_F(DataGlue, MnliReadsDevMatched) {
  const std::string header = "index\tpromptID\tpairID\tgenre\tsentence1\tsentence2\tlabel1\tgold_label\n";
  write("train.tsv", header + "0\t1\t1n\tfiction\tthe cat\tthe mat\tneutral\tneutral\n" +
                         "1\t2\t2e\tfiction\thello\thello world\tentailment\tentailment\n");
  write("dev_matched.tsv", header + "0\t3\t3c\tslate\tthe cat\ta cat\tcontradiction\tcontradiction\n");
  const auto data = load(glue("mnli"));
  EXPECT_EQ(data->labels().names, (Tokens{"entailment", "neutral", "contradiction"}));
  EXPECT_EQ(data->train()->examples[0].label, 1);
  EXPECT_EQ(data->train()->examples[1].label, 0);
  EXPECT_EQ(data->validation()->source, path("dev_matched.tsv"));
  EXPECT_EQ(data->validation()->examples[0].label, 2);
}

struct PairTask {
  const char* name;
  const char* header;
  const char* row;  // label of this row: id 1; text "the cat" / "on the mat"
};

TEST_F(DataGlue, QqpQnliRteColumnsAndLabels) {
  for (const PairTask& task : {
           PairTask{"qqp", "id\tqid1\tqid2\tquestion1\tquestion2\tis_duplicate\n",
                    "7\t1\t2\tthe cat\ton the mat\t1\n"},
           PairTask{"qnli", "index\tquestion\tsentence\tlabel\n", "0\tthe cat\ton the mat\tnot_entailment\n"},
           PairTask{"rte", "index\tsentence1\tsentence2\tlabel\n",
                    "0\tthe cat\ton the mat\tnot_entailment\n"},
       }) {
    SCOPED_TRACE(task.name);
    write("train.tsv", std::string(task.header) + task.row);
    write("dev.tsv", std::string(task.header) + task.row);
    const auto data = load(glue(task.name));
    EXPECT_EQ(data->labels().names.size(), 2u);
    EXPECT_EQ(data->labels().id_of(std::string(task.name) == "qqp" ? "duplicate" : "not_entailment"), 1);
    ASSERT_EQ(data->train()->examples.size(), 1u);
    EXPECT_EQ(tokens(data->train()->examples[0]),
              (Tokens{"[CLS]", "the", "cat", "[SEP]", "on", "the", "mat", "[SEP]"}));
    EXPECT_EQ(data->train()->examples[0].label, 1);
    EXPECT_EQ(data->validation()->examples[0].label, 1);
  }
}

TEST_F(DataGlue, StsbIsRegression) {
  const std::string header =
      "index\tgenre\tfilename\tyear\told_index\tsource1\tsource2\tsentence1\tsentence2\tscore\n";
  write("train.tsv", header + "0\tmain\tf\t2012\t1\tnone\tnone\tthe cat\ta cat\t3.800\n");
  write("dev.tsv", header + "0\tmain\tf\t2012\t1\tnone\tnone\thello\tworld\t0\n");
  const auto data = load(glue("stsb"));
  EXPECT_TRUE(data->labels().regression);
  EXPECT_TRUE(data->labels().names.empty());
  EXPECT_FLOAT_EQ(data->train()->examples[0].target, 3.8f);
  EXPECT_FLOAT_EQ(data->validation()->examples[0].target, 0.0f);
  write("dev.tsv", header + "0\tmain\tf\t2012\t1\tnone\tnone\thello\tworld\thigh\n");
  EXPECT_EQ(error(glue("stsb")), path("dev.tsv") + ":2: score 'high' is not a number");
}

TEST_F(DataGlue, CrlfBomTrailingEmptyLineAndQuotesAreText) {
  write("train.tsv",
        "\xEF\xBB\xBFQuality\t#1 ID\t#2 ID\t#1 String\t#2 String\r\n"
        "1\t1\t2\tthe \"cat\tsat\"\r\n\r\n");
  const auto data = load(glue("mrpc"), true, false);
  ASSERT_EQ(data->train()->examples.size(), 1u);
  // The quotes are text ([UNK] in this vocabulary), and do not join the two fields.
  EXPECT_EQ(tokens(data->train()->examples[0]),
            (Tokens{"[CLS]", "the", "[UNK]", "cat", "[SEP]", "sat", "[UNK]", "[SEP]"}));
}

TEST_F(DataGlue, WrongFieldCountNamesFileLineAndColumns) {
  write("train.tsv", std::string(kMrpcHeader) + "1\t1\t2\tthe cat\tthe mat\n" + "1\t1\t2\tthe cat\n");
  EXPECT_EQ(error(glue("mrpc"), true, false),
            path("train.tsv") +
                ":3: expected 5 tab-separated fields (Quality, #1 ID, #2 ID, #1 String, #2 String), "
                "found 4");
}

TEST_F(DataGlue, BadLabelNamesTheAcceptedValues) {
  write("train.tsv",
        std::string(kMrpcHeader) + "1\t1\t2\tthe cat\tthe mat\n" + "2\t1\t2\tthe cat\tthe mat\n");
  EXPECT_EQ(error(glue("mrpc"), true, false), path("train.tsv") + ":3: label '2' is not one of 0, 1");
  write("train.tsv", "index\tsentence1\tsentence2\tlabel\n0\ta\tb\tentailed\n");
  EXPECT_EQ(error(glue("rte"), true, false),
            path("train.tsv") + ":2: label 'entailed' is not one of entailment, not_entailment");
}

TEST_F(DataGlue, MissingColumnSaysWhichAndWhatWasFound) {
  write("train.tsv", "Quality\t#1 String\t#2 Strin\n1\ta\tb\n");
  EXPECT_EQ(error(glue("mrpc"), true, false),
            path("train.tsv") +
                ": no column '#2 String' (columns: Quality, #1 String, #2 Strin); is this MRPC's "
                "train.tsv?");
}

TEST_F(DataGlue, EmptyAndHeaderOnlyFiles) {
  write("train.tsv", "");
  EXPECT_TRUE(contains(error(glue("sst2"), true, false), path("train.tsv") + ": the file is empty"));
  write("train.tsv", "sentence\tlabel\r\n");
  EXPECT_TRUE(
      contains(error(glue("sst2"), true, false), path("train.tsv") + ": no rows after the header line"));
  write("train.tsv", "\n\n");
  EXPECT_TRUE(contains(error(glue("cola"), true, false), path("train.tsv") + ": the file is empty"));
}

TEST_F(DataGlue, InvalidUtf8NamesFileLineAndColumn) {
  write("train.tsv",
        std::string(kMrpcHeader) + "1\t1\t2\tthe cat\tthe mat\n" + "1\t1\t2\tthe \xC3\x28 cat\tmat\n");
  EXPECT_TRUE(contains(error(glue("mrpc"), true, false),
                       path("train.tsv") + ":3: column '#1 String': invalid UTF-8 at byte 4"));
}

TEST_F(DataGlue, FirstBadRowInFileOrderIsReportedAfterParallelTokenizing) {
  std::string text = "sentence\tlabel\n";
  for (int i = 0; i < 3000; ++i) {
    // Lines 1502 and 2802 hold invalid UTF-8 (rows 1500 and 2800 after the header at line 1).
    text += (i == 1500 || i == 2800) ? "the \xFF\t1\n" : "the cat sat on the mat\t0\n";
  }
  write("train.tsv", text);
  EXPECT_TRUE(contains(error(glue("sst2"), true, false), path("train.tsv") + ":1502: column 'sentence'"));
}

TEST_F(DataGlue, TruncatesLongestFirstWithoutPadding) {
  write("train.tsv", std::string(kMrpcHeader) + "1\t1\t2\ta b c d e\tv w x y z\n");
  TaskOptions options = glue("mrpc");
  options.max_seq_length = 10;
  const auto data = load(options, true, false);
  // Budget 7 for lengths (5, 5): a keeps 3, b keeps 4 (longest_first, the fast tokenizer's tie rule).
  EXPECT_EQ(tokens(data->train()->examples[0]),
            (Tokens{"[CLS]", "a", "b", "c", "[SEP]", "v", "w", "x", "y", "[SEP]"}));
}

TEST_F(DataGlue, MaxSamplesKeepTheFirstRows) {
  write("train.tsv", "sentence\tlabel\nthe\t0\ncat\t1\nsat\t0\n");
  write("dev.tsv", "sentence\tlabel\nthe\t0\ncat\t1\nsat\t9\n");
  TaskOptions options = glue("sst2");
  options.max_train_samples = 2;
  options.max_eval_samples = 2;  // the bad label of row 3 is never read
  const auto data = load(options);
  ASSERT_EQ(data->train()->examples.size(), 2u);
  EXPECT_EQ(tokens(data->train()->examples[1]), (Tokens{"[CLS]", "cat", "[SEP]"}));
  EXPECT_EQ(data->validation()->examples.size(), 2u);
  options.max_train_samples = 10;
  EXPECT_EQ(load(options, true, false)->train()->examples.size(), 3u);
}

TEST_F(DataGlue, MissingFolderAndFilesAreNamed) {
  TaskOptions options = glue("rte");
  options.data_dir = dir_ / "nowhere";
  EXPECT_EQ(error(options),
            (dir_ / "nowhere").string() +
                ": no such folder; --data_dir must be the folder of GLUE's RTE files (train.tsv, "
                "dev.tsv)");
  EXPECT_EQ(error(glue("rte"), true, false),
            path("train.tsv") +
                ": no such file; expected RTE's train.tsv from GLUE's download script (--data_dir)");
  // Evaluation alone reads only the dev file.
  write("dev_matched.tsv", "sentence1\tsentence2\tgold_label\na\tb\tneutral\n");
  EXPECT_EQ(load(glue("mnli"), false, true)->validation()->examples.size(), 1u);
  EXPECT_EQ(error(glue("sst-5")),
            "unknown --task_name 'sst-5': one of cola, sst2, mrpc, qqp, stsb, mnli, qnli, rte, wnli, or squad (or "
            "pass --train_file for your own data)");
}

}  // namespace
}  // namespace shmtrain::task
