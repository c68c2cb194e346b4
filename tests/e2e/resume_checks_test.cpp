// Resume checks what it resumes: a checkpoint goes on only with the vocabulary it was trained
// with (its tokenizer files compared token by token with the run's).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "support/test_support.hpp"

namespace {

namespace fs = std::filesystem;
using shmtrain::testing::CliRun;
using shmtrain::testing::read_file;
using shmtrain::testing::run_shmtrain;
using shmtrain::testing::source_dir;
using shmtrain::testing::TempDir;
using shmtrain::testing::write_file;

TEST(ResumeChecks, ACheckpointOfAnotherVocabularyIsRefusedNamingTheToken) {
  const TempDir dir;
  const std::string flags = "train --config configs/demo.toml --max_steps 4 --save_steps 2 --do_eval false "
                            "--report_to none --overwrite_output_dir false --save_total_limit 5";
  const CliRun first = run_shmtrain(flags + " --output_dir " + (dir / "first").string(), source_dir());
  ASSERT_EQ(first.exit_code, 0) << first.output();

  // The demo's vocabulary with two tokens swapped: the same size, other ids.
  std::string vocab = read_file(source_dir() / "demo" / "paraphrase" / "vocab.txt");
  const std::size_t line10 = [&] {
    std::size_t at = 0;
    for (int i = 0; i < 10; ++i) at = vocab.find('\n', at) + 1;
    return at;
  }();
  const std::size_t end10 = vocab.find('\n', line10);
  const std::size_t end11 = vocab.find('\n', end10 + 1);
  const std::string a = vocab.substr(line10, end10 - line10);
  const std::string b = vocab.substr(end10 + 1, end11 - end10 - 1);
  vocab.replace(line10, end11 - line10, b + "\n" + a);
  fs::create_directories(dir / "other");
  write_file(dir / "other" / "vocab.txt", vocab);
  fs::copy_file(source_dir() / "demo" / "paraphrase" / "tokenizer_config.json", dir / "other" / "tokenizer_config.json");

  const CliRun resumed = run_shmtrain(flags + " --output_dir " + (dir / "second").string() + " --tokenizer_name " +
                                          (dir / "other").string() + " --resume_from_checkpoint " +
                                          (dir / "first" / "checkpoint-2").string(),
                                      source_dir());
  EXPECT_EQ(resumed.exit_code, 1) << resumed.output();
  EXPECT_NE(resumed.err.find("the checkpoint's tokenizer has token '" + a + "' at id 10"), std::string::npos)
      << resumed.err;
}

}  // namespace
