// Training from a pytorch_model.bin folder (tests/fixtures/torch_bin/bert_tiny_cls_bin, the
// reranker fixture's weights saved by torch.save) equals training from the same weights as
// safetensors bit for bit, and writes safetensors.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "reference_run.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;

TEST(TorchBinFolder, TrainsAsItsSafetensorsTwinBitForBit) {
  const TempDir dir;
  const auto run = [&](const fs::path& model, const char* name) {
    const CliRun r = run_shmtrain(
        "train --task_name reranking --do_train --model_name_or_path " + model.string() + " --train_file " +
        (fixtures_dir() / "reranking" / "bert_tiny_cls" / "pairs.jsonl").string() + " --output_dir " +
        (dir / name).string() +
        " --max_seq_length 32 --per_device_train_batch_size 8 --max_steps 6 --logging_steps 1 --save_steps 0 "
        "--shuffle false --disable_tqdm");
    EXPECT_EQ(r.exit_code, 0) << r.output();
    return logged_losses(dir / name / "metrics.jsonl");
  };
  const auto from_bin = run(fixtures_dir() / "torch_bin" / "bert_tiny_cls_bin", "bin");
  const auto from_safetensors = run(fixtures_dir() / "reranking" / "bert_tiny_cls", "safetensors");
  ASSERT_EQ(from_bin.size(), 6u);
  EXPECT_EQ(from_bin, from_safetensors);  // the same doubles, bit for bit
  EXPECT_TRUE(fs::exists(dir / "bin" / "model.safetensors"));
  EXPECT_FALSE(fs::exists(dir / "bin" / "pytorch_model.bin"));
}

}  // namespace
}  // namespace shmtrain::testing
