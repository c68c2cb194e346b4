// --task_name sentence-embedding through the built binary on the PyTorch fixture
// tests/fixtures/sentence_embedding/bert_tiny (tools/make_sentence_embedding_references.py):
// each loss's losses are PyTorch's at every step; P workers with --gather_across_devices (and
// 2 MPI hosts) train what 1 worker trains on the whole batch, dropout on; the output folder is
// a sentence-transformers folder; bad input is an error naming the file, row or flag.
#include <cmath>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reference_run.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace sentence_embedding_cli_test {

namespace fs = std::filesystem;

fs::path fixture() { return fixtures_dir() / "sentence_embedding" / "bert_tiny"; }

nlohmann::json reference_case(const std::string& name) {
  std::ifstream in(fixture() / "reference.json");
  return nlohmann::json::parse(in)["cases"][name];
}

// The reference's recipe: 8 examples a step, shuffle off, lr 1e-3, weight decay 0.01, constant.
std::string flags(const std::string& name, const fs::path& out) {
  const nlohmann::json c = reference_case(name);
  return "train --task_name sentence-embedding --do_train --model_name_or_path " + fixture().string() +
         " --train_file " + (fixture() / c["train_file"].get<std::string>()).string() + " --output_dir " +
         out.string() +
         " --max_seq_length 32 --learning_rate 1e-3 --weight_decay 0.01 --lr_scheduler_type constant"
         " --shuffle false --logging_steps 1 --num_train_epochs 1 --save_steps 0 --disable_tqdm " +
         c["flags"].get<std::string>();
}

std::vector<double> losses_of(const fs::path& out) { return logged_losses(out / "metrics.jsonl"); }

class SentenceLosses : public ::testing::TestWithParam<std::string> {};

TEST_P(SentenceLosses, EqualPyTorchAtEveryStep) {
  const TempDir dir;
  const CliRun run = run_shmtrain(flags(GetParam(), dir / "out") + " --per_device_train_batch_size 8");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  const auto expected = reference_case(GetParam())["losses"].get<std::vector<double>>();
  const auto losses = losses_of(dir / "out");
  ASSERT_EQ(losses.size(), expected.size());
  for (std::size_t i = 0; i < losses.size(); ++i) {
    // 1e-4 relative: the bound; float32 on both sides (their fp64 run is within 1e-5).
    EXPECT_NEAR(losses[i], expected[i], 1e-4 * std::abs(expected[i])) << "step " << i + 1;
  }
}

INSTANTIATE_TEST_SUITE_P(Losses, SentenceLosses,
                         ::testing::Values("mnrl_triplets", "mnrl_pairs_cls_normalize", "cosent", "angle",
                                           "matryoshka_mnrl"));

// In-batch negatives across workers: 2 workers x 4 examples gathering every worker's positives
// and negatives are 1 worker x 8 (the same global batch as the negative pool), dropout on (each
// text's masks are keyed by its row).
TEST(SentenceGather, TwoWorkersTrainWhatOneWorkerTrainsOnTheWholeBatchDropoutOn) {
  const TempDir dir;
  for (const char* name : {"mnrl_triplets", "matryoshka_mnrl"}) {
    SCOPED_TRACE(name);
    const std::string dropout = " --hidden_dropout_prob 0.1 --attention_probs_dropout_prob 0.1";
    const CliRun one = run_shmtrain(flags(name, dir / (std::string(name) + "1")) + dropout +
                                    " --per_device_train_batch_size 8");
    ASSERT_EQ(one.exit_code, 0) << one.output();
    const CliRun two = run_shmtrain(flags(name, dir / (std::string(name) + "2")) + dropout +
                                    " --per_device_train_batch_size 4 --nproc_per_node 2 --gather_across_devices");
    ASSERT_EQ(two.exit_code, 0) << two.output();
    const auto expected = losses_of(dir / (std::string(name) + "1"));
    const auto losses = losses_of(dir / (std::string(name) + "2"));
    ASSERT_EQ(losses.size(), 20u);
    ASSERT_EQ(losses.size(), expected.size());
    for (std::size_t i = 0; i < losses.size(); ++i) {
      EXPECT_NEAR(losses[i], expected[i], 1e-5 * std::abs(expected[i])) << "step " << i + 1;
    }
    // Without the gather, each worker ranks against its own 4 examples only: another loss.
    if (std::string(name) == "mnrl_triplets") {
      const CliRun own = run_shmtrain(flags(name, dir / "own") + dropout +
                                      " --per_device_train_batch_size 4 --nproc_per_node 2");
      ASSERT_EQ(own.exit_code, 0) << own.output();
      EXPECT_GT(std::abs(losses_of(dir / "own")[0] - expected[0]), 1e-2);
    }
  }
}

TEST(SentenceGather, TwoMpiHostsTrainWhatOneWorkerTrainsOnTheWholeBatch) {
  if (const std::string reason = mpi_unavailable_reason(); !reason.empty()) GTEST_SKIP() << reason;
  const TempDir dir;
  const CliRun one = run_shmtrain(flags("mnrl_triplets", dir / "one") + " --per_device_train_batch_size 8");
  ASSERT_EQ(one.exit_code, 0) << one.output();
  const CliRun hosts = run_command(mpiexec_prefix(2) + " " + shmtrain_binary().string() + " " +
                                   flags("mnrl_triplets", dir / "hosts") +
                                   " --per_device_train_batch_size 4 --gather_across_devices --simulated_hosts 2");
  ASSERT_EQ(hosts.exit_code, 0) << hosts.output();
  const auto expected = losses_of(dir / "one");
  const auto losses = losses_of(dir / "hosts");
  ASSERT_EQ(losses.size(), expected.size());
  for (std::size_t i = 0; i < losses.size(); ++i) {
    EXPECT_NEAR(losses[i], expected[i], 1e-5 * std::abs(expected[i])) << "step " << i + 1;
  }
}

TEST(SentenceFolder, IsASentenceTransformersFolder) {
  const TempDir dir;
  const CliRun run = run_shmtrain(flags("mnrl_pairs_cls_normalize", dir / "out") + " --per_device_train_batch_size 8");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  const fs::path out = dir / "out";
  const auto modules = nlohmann::json::parse(read_file(out / "modules.json"));
  ASSERT_EQ(modules.size(), 3u);
  EXPECT_EQ(modules[0]["type"], "sentence_transformers.models.Transformer");
  EXPECT_EQ(modules[1]["path"], "1_Pooling");
  EXPECT_EQ(modules[2]["type"], "sentence_transformers.models.Normalize");
  const auto pooling = nlohmann::json::parse(read_file(out / "1_Pooling" / "config.json"));
  EXPECT_EQ(pooling["word_embedding_dimension"], 32);
  EXPECT_EQ(pooling["pooling_mode_cls_token"], true);
  EXPECT_EQ(pooling["pooling_mode_mean_tokens"], false);
  EXPECT_TRUE(fs::is_directory(out / "2_Normalize"));
  EXPECT_EQ(nlohmann::json::parse(read_file(out / "config_sentence_transformers.json"))["similarity_fn_name"], "cosine");
  EXPECT_EQ(nlohmann::json::parse(read_file(out / "sentence_bert_config.json"))["max_seq_length"], 32);
  const auto config = nlohmann::json::parse(read_file(out / "config.json"));
  EXPECT_EQ(config["architectures"], nlohmann::json::array({"BertModel"}));
  EXPECT_TRUE(fs::exists(out / "model.safetensors"));
  EXPECT_TRUE(fs::exists(out / "vocab.txt"));
}

// Bad input: one clear error naming the file and line, or the flag, and nothing written.
TEST(SentenceErrors, NameTheFileLineOrFlag) {
  const TempDir dir;
  write_file(dir / "one_column.jsonl", "{\"anchor\": \"bal bel\"}\n");
  write_file(dir / "no_score.jsonl",
             "{\"sentence1\": \"bal bel\", \"sentence2\": \"bil\", \"score\": 0.5}\n"
             "{\"sentence1\": \"bal\", \"sentence2\": \"bel\", \"score\": null}\n");
  write_file(dir / "short_row.jsonl",
             "{\"anchor\": \"bal\", \"positive\": \"bel\", \"negative\": \"bil\"}\n"
             "{\"anchor\": \"bal\", \"positive\": \"bel\"}\n");
  const std::string base = "train --task_name sentence-embedding --do_train --model_name_or_path " +
                           fixture().string() + " --max_seq_length 32 --output_dir ";
  struct Case {
    std::string flags, message;
  };
  const std::vector<Case> cases = {
      {"--train_file " + (dir / "one_column.jsonl").string(),
       "one_column.jsonl: 1 text column (anchor); the loss needs at least an anchor and a positive"},
      {"--train_file " + (dir / "no_score.jsonl").string() + " --loss CoSENTLoss",
       "no_score.jsonl:2: column 'score' has no value: a scored pair needs its score"},
      {"--train_file " + (dir / "short_row.jsonl").string(), "short_row.jsonl:2: column 'negative' is missing"},
      {"--train_file " + (fixture() / "mnrl_triplets.jsonl").string() + " --per_device_train_batch_size 1",
       "--loss MultipleNegativesRankingLoss: --per_device_train_batch_size 1 leaves an anchor no in-batch negative"},
      {"--train_file " + (fixture() / "mnrl_triplets.jsonl").string() + " --matryoshka_dims 64,16",
       "--matryoshka_dims: 64 is larger than the model's embedding dimension 32"},
      {"--train_file " + (fixture() / "mnrl_triplets.jsonl").string() + " --loss TripletLoss",
       "--loss: 'TripletLoss' is not a sentence-embedding loss"},
      {"--train_file " + (fixture() / "mnrl_triplets.jsonl").string() + " --pooling avg",
       "--pooling: 'avg' is not a pooling mode"},
  };
  int i = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.flags);
    const fs::path out = dir / ("out" + std::to_string(i++));
    const CliRun run = run_shmtrain(base + out.string() + " " + c.flags);
    EXPECT_NE(run.exit_code, 0) << run.output();
    EXPECT_NE(run.err.find(c.message), std::string::npos) << run.output();
    EXPECT_FALSE(fs::exists(out / "model.safetensors"));
  }
}

}  // namespace sentence_embedding_cli_test
}  // namespace shmtrain::testing
