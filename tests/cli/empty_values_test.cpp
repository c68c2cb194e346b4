// An empty argument is a value, as Python's argparse takes it, in every command: `--text_a ""`
// is the text "", not a flag missing its value, and never swallows the flag after it. Checked
// on the real parser (parse_arguments: Hugging Face's spellings rewritten, then CLI11); the
// binary's own run is in tests/e2e/cmd_tokenize_test.cpp.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/cli/app.hpp"
#include "support/test_support.hpp"

namespace {

using shmtrain::cli::parse_arguments;
using shmtrain::cli::ParsedArguments;
using shmtrain::testing::error_of;
using Words = std::vector<std::string>;

ParsedArguments parsed(Words args) {
  args.insert(args.begin(), "shmtrain");
  return parse_arguments(args);
}

std::string refusal(Words args) {
  return error_of([&] { parsed(std::move(args)); });
}

TEST(EmptyValues, AnEmptyTextIsTheTextAndTheNextFlagKeepsItsValue) {
  const ParsedArguments p = parsed({"tokenize", "--model", "M", "--text_a", "", "--max_seq_length", "0"});
  EXPECT_EQ(p.subcommand, "tokenize");
  EXPECT_EQ(p.values.at("text_a"), Words{""});
  EXPECT_EQ(p.values.at("max_seq_length"), Words{"0"});
  EXPECT_EQ(p.values.at("model"), Words{"M"});
}

TEST(EmptyValues, LastOnTheLineInlineOrDashedAlike) {
  EXPECT_EQ(parsed({"tokenize", "--model", "M", "--text_a", ""}).values.at("text_a"), Words{""});
  const ParsedArguments inline_empty = parsed({"tokenize", "--text_a=", "--text-b", "", "--model", "M"});
  EXPECT_EQ(inline_empty.values.at("text_a"), Words{""});
  EXPECT_EQ(inline_empty.values.at("text_b"), Words{""});
  EXPECT_EQ(inline_empty.values.at("model"), Words{"M"});
}

TEST(EmptyValues, EveryCommandTakesThem) {
  // --run_name, a Trainer flag without effect here, is taken out with its value.
  const ParsedArguments train = parsed(
      {"train", "--run_name", "", "--text_column_name", "", "--max_steps", "3", "--output_dir", "out"});
  EXPECT_EQ(train.subcommand, "train");
  EXPECT_EQ(train.values.count("run_name"), 0u);
  EXPECT_EQ(train.values.at("text_column_name"), Words{""});
  EXPECT_EQ(train.values.at("max_steps"), Words{"3"});
  EXPECT_EQ(train.values.at("output_dir"), Words{"out"});

  const ParsedArguments report = parsed({"report", "--output", "", "runs/a"});
  EXPECT_EQ(report.values.at("output"), Words{""});
  EXPECT_EQ(report.values.at("run_dirs"), Words{"runs/a"});

  const ParsedArguments bench = parsed({"bench", "train", "--lengths", "", "--steps", "2"});
  EXPECT_EQ(bench.subcommand, "bench train");
  EXPECT_EQ(bench.values.at("lengths"), Words{""});
  EXPECT_EQ(bench.values.at("steps"), Words{"2"});

  const ParsedArguments allreduce = parsed({"bench", "allreduce", "--sizes", "", "--iters", "4"});
  EXPECT_EQ(allreduce.values.at("sizes"), Words{""});
  EXPECT_EQ(allreduce.values.at("iters"), Words{"4"});

  const ParsedArguments topo = parsed({"topo", "--cpuset", "", "--nproc_per_node", "2"});
  EXPECT_EQ(topo.values.at("cpuset"), Words{""});
  EXPECT_EQ(topo.values.at("nproc_per_node"), Words{"2"});
}

// argparse's type=int / float refuse '' (CLI11 alone would read it as 0); its string_to_bool
// refuses it too.
TEST(EmptyValues, ANumberOrABooleanIsNeverEmpty) {
  EXPECT_NE(refusal({"tokenize", "--model", "M", "--max_seq_length", ""}).find("--max_seq_length: '' is not a number"),
            std::string::npos);
  EXPECT_NE(refusal({"train", "--learning_rate=", "--max_steps", "3"}).find("--learning_rate: '' is not a number"),
            std::string::npos);
  EXPECT_NE(refusal({"bench", "allreduce", "--iters", ""}).find("--iters: '' is not a number"), std::string::npos);
  EXPECT_NE(refusal({"train", "--do_train", ""}).find("--do_train: '' is not true or false"), std::string::npos);
}

}  // namespace
