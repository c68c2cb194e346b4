// Which data source the options name: exactly one, with the flags it needs.
#include <gtest/gtest.h>

#include "task/task_fixture.hpp"

namespace shmtrain::task {
namespace {

class TaskOptionsCheck : public DataFiles {};

TEST_F(TaskOptionsCheck, NeitherSource) {
  EXPECT_EQ(
      error(TaskOptions{}),
      "no data: pass --task_name and --data_dir (a GLUE task's folder of TSV files), or --train_file and "
      "--validation_file (your own .csv, .tsv or .jsonl files)");
  EXPECT_EQ(error(TaskOptions{}, true, false),
            "no data: pass --task_name and --data_dir (a GLUE task's folder of TSV files), or --train_file "
            "(your own "
            ".csv, .tsv or .jsonl files)");
}

TEST_F(TaskOptionsCheck, BothSources) {
  TaskOptions options = glue("mrpc");
  options.train_file = dir_ / "train.csv";
  EXPECT_EQ(error(options),
            "both a GLUE task (--task_name, --data_dir) and custom files (--train_file, "
            "--validation_file) were given: pass one of them");
}

TEST_F(TaskOptionsCheck, MissingCompanionFlags) {
  TaskOptions options;
  options.task_name = "mrpc";
  EXPECT_EQ(error(options),
            "--task_name mrpc needs --data_dir, the folder of GLUE's mrpc TSV files (train.tsv, dev.tsv)");
  options = {};
  options.data_dir = dir_.path();
  EXPECT_EQ(error(options), "--data_dir " + dir_.path().string() +
                                " needs --task_name (one of cola, sst2, mrpc, qqp, stsb, mnli, qnli, rte, wnli)");
  options = {};
  options.validation_file = dir_ / "dev.csv";
  EXPECT_EQ(error(options),
            "--validation_file needs --train_file too: the label set is read from the training file");
  EXPECT_EQ(error(custom("train.csv")), "evaluation needs --validation_file (or run without evaluation)");
}

TEST_F(TaskOptionsCheck, SampleCountsAndSequenceLength) {
  TaskOptions options = custom("train.csv");
  options.max_train_samples = 0;
  EXPECT_EQ(error(options, true, false), "--max_train_samples 0 keeps no rows");
  options = glue("mrpc");
  options.max_seq_length = 2;
  EXPECT_EQ(error(options), "--max_seq_length 2 is below the 3 special tokens of MRPC");
}

}  // namespace
}  // namespace shmtrain::task
