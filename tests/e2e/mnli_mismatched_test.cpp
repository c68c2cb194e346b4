// run_glue.py's MNLI: after training it evaluates validation_matched and then
// validation_mismatched, the second's metrics suffixed "_mm" beside the first's.
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using shmtrain::testing::CliRun;
using shmtrain::testing::read_file;
using shmtrain::testing::run_shmtrain;
using shmtrain::testing::source_dir;
using shmtrain::testing::TempDir;
using shmtrain::testing::write_file;

// GLUE's MNLI TSV (only the columns shmtrain reads, in a header of their names).
std::string mnli_tsv(int rows, int offset) {
  const char* labels[] = {"entailment", "neutral", "contradiction"};
  std::string text = "index\tsentence1\tsentence2\tgold_label\n";
  for (int i = 0; i < rows; ++i) {
    text += fmt::format("{}\tthe cat sat on mat number {}\ta cat sat on a mat {}\t{}\n", i, i + offset,
                        (i * 7 + offset) % 11, labels[(i + offset) % 3]);
  }
  return text;
}

TEST(MnliMismatched, EvaluatesBothSetsWithRunGluesSuffix) {
  const TempDir dir;
  write_file(dir / "mnli" / "train.tsv", mnli_tsv(24, 0));
  write_file(dir / "mnli" / "dev_matched.tsv", mnli_tsv(7, 100));
  write_file(dir / "mnli" / "dev_mismatched.tsv", mnli_tsv(5, 200));
  const fs::path out = dir / "out";
  const CliRun run = run_shmtrain(
      "train --config_name demo/paraphrase/config.json --tokenizer_name demo/paraphrase --task_name mnli --data_dir " +
          (dir / "mnli").string() + " --do_train --do_eval --max_steps 2 --save_steps 0 --output_dir " + out.string(),
      source_dir());
  ASSERT_EQ(run.exit_code, 0) << run.output();
  const nlohmann::json eval = nlohmann::json::parse(read_file(out / "eval_results.json"));
  EXPECT_EQ(eval["eval_samples"], 7) << eval.dump();
  EXPECT_EQ(eval["eval_samples_mm"], 5) << eval.dump();
  for (const char* key : {"eval_accuracy", "eval_loss", "eval_accuracy_mm", "eval_loss_mm", "eval_runtime_mm"}) {
    EXPECT_TRUE(eval.contains(key)) << key << ": " << eval.dump();
  }
  const nlohmann::json all = nlohmann::json::parse(read_file(out / "all_results.json"));
  EXPECT_TRUE(all.contains("eval_accuracy_mm")) << all.dump();
}

}  // namespace
