// `shmtrain encode` against the PyTorch port of SentenceTransformer.encode in
// tools/make_sentence_embedding_references.py (the bert_tiny fixture's initial weights): mean
// pooling + Normalize and cls pooling; a sentence-transformers folder written by shmtrain, and
// one in sentence-transformers 5.4's form, read back with their own pooling and normalisation.
#include <cstring>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "npy_values.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace encode_cli_test {

namespace fs = std::filesystem;

fs::path fixture() { return fixtures_dir() / "sentence_embedding" / "bert_tiny"; }

nlohmann::json reference() {
  std::ifstream in(fixture() / "reference.json");
  return nlohmann::json::parse(in)["encode"];
}

// A float32 .npy's values, checking its header's shape.
std::vector<float> read_npy(const fs::path& path, std::size_t rows, std::size_t cols) {
  const std::string bytes = read_file(path);
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  const std::size_t end = bytes.find('\n');
  EXPECT_EQ((end + 1) % 64, 0u);
  EXPECT_NE(bytes.find(fmt::format("'shape': ({}, {})", rows, cols)), std::string::npos) << bytes.substr(0, end);
  EXPECT_NE(bytes.find("'descr': '<f4'"), std::string::npos);
  return npy_values(path);
}

class Encode : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string lines;
    const nlohmann::json texts = reference()["texts"];  // a loop over reference()["texts"] would dangle
    for (const auto& t : texts) lines += t.get<std::string>() + "\n";
    write_file(dir_ / "texts.txt", lines);
  }
  // Encodes texts.txt with `model` and compares with the reference's `key` embeddings.
  void expect_embeddings(const fs::path& model, const std::string& flags, const std::string& key) {
    const fs::path out = dir_ / "emb.npy";
    const CliRun run = run_shmtrain("encode --model_name_or_path " + model.string() + " --input " +
                                    (dir_ / "texts.txt").string() + " --output " + out.string() + " " + flags);
    ASSERT_EQ(run.exit_code, 0) << run.output();
    EXPECT_NE(run.out.find("encoded 12 texts"), std::string::npos) << run.out;
    const auto expected = reference()[key].get<std::vector<float>>();
    EXPECT_TRUE(all_close(read_npy(out, 12, 32), expected, 1e-5));
  }
  // A model folder trained one step at learning rate 1e-30 (no float32 weight moves): the
  // fixture's weights under shmtrain's sentence-transformers files.
  fs::path written_folder(const std::string& name, const std::string& flags) {
    const fs::path out = dir_ / name;
    const CliRun run = run_shmtrain(
        "train --task_name sentence-embedding --do_train --model_name_or_path " + fixture().string() +
        " --train_file " + (fixture() / "mnrl_triplets.jsonl").string() + " --output_dir " + out.string() +
        " --max_seq_length 32 --per_device_train_batch_size 8 --max_steps 1 --learning_rate 1e-30 --save_steps 0 " + flags);
    EXPECT_EQ(run.exit_code, 0) << run.output();
    return out;
  }
  TempDir dir_;
};

TEST_F(Encode, MeanPooledNormalisedEmbeddingsEqualPyTorchs) {
  expect_embeddings(fixture(), "--normalize", "mean_normalized");
}

TEST_F(Encode, ClsPoolingEqualsPyTorchs) { expect_embeddings(fixture(), "--pooling cls", "cls"); }

TEST_F(Encode, AFolderShmtrainWroteIsReadBackWithItsPoolingAndNormalize) {
  expect_embeddings(written_folder("mean", "--normalize"), "", "mean_normalized");
  const fs::path cls = written_folder("cls", "--pooling cls --normalize");
  // Trained from as a starting point, the folder's Pooling and Normalize carry on.
  const fs::path again = dir_ / "again";
  const CliRun run = run_shmtrain("train --task_name sentence-embedding --do_train --model_name_or_path " +
                                  cls.string() + " --train_file " + (fixture() / "mnrl_triplets.jsonl").string() +
                                  " --output_dir " + again.string() + " --max_seq_length 32 --max_steps 1 --save_steps 0");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  EXPECT_EQ(nlohmann::json::parse(read_file(again / "1_Pooling" / "config.json"))["pooling_mode_cls_token"], true);
  EXPECT_EQ(nlohmann::json::parse(read_file(again / "modules.json")).size(), 3u);
  expect_embeddings(written_folder("cls_plain", "--pooling cls"), "", "cls");
}

TEST_F(Encode, ASentenceTransformers54FolderIsRead) {
  const fs::path folder = dir_ / "st54";
  fs::create_directories(folder / "1_Pooling");
  for (const char* name : {"config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json"}) {
    fs::copy_file(fixture() / name, folder / name);
  }
  write_file(folder / "modules.json",
             R"([{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.base.modules.transformer.Transformer"},
                 {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.base.modules.pooling.Pooling"}])");
  write_file(folder / "1_Pooling" / "config.json", R"({"embedding_dimension": 32, "pooling_mode": "cls"})");
  expect_embeddings(folder, "", "cls");

  write_file(folder / "modules.json", R"([{"path": "", "type": "sentence_transformers.models.Transformer"},
      {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
      {"path": "2_Dense", "name": "2", "type": "sentence_transformers.models.Dense"}])");
  const CliRun run = run_shmtrain("encode --model_name_or_path " + folder.string() + " --input " +
                                  (dir_ / "texts.txt").string() + " --output " + (dir_ / "x.npy").string());
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("modules.json: module '2' (sentence_transformers.models.Dense) is not one shmtrain runs"),
            std::string::npos)
      << run.output();
  EXPECT_FALSE(fs::exists(dir_ / "x.npy"));
}

}  // namespace encode_cli_test
}  // namespace shmtrain::testing
