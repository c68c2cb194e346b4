// ModernBERT through the built binary, as a run_glue user would run it: the PyTorch fixtures
// tests/fixtures/reference_heads/modernbert_{cls,mean} (cls and mean pooling; legacy and
// transformers-5 config spellings; rows of 24 tokens, longer than the sliding layers' window of
// 4 keys each side) as model folders, trained with the reference's settings on 1 and on 2
// workers: the losses are PyTorch's at every step. The checkpoint shmtrain writes has Hugging
// Face's names and config keys, and its logits on the fixture's first batch are those of
// PyTorch's model after the same 20 steps (logits.json; tools/modernbert_logits.py checks the
// same folder in the PyTorch port itself).
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/fixture_batches.hpp"
#include "reference_run.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/tensor/allocator.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;

// The logits of the model in `folder` on batches[0] of the fixture, in evaluation.
std::vector<float> first_batch_logits(const fs::path& folder, const fs::path& fixture) {
  model::BertConfig config = model::read_hf_config(folder / "config.json");
  const model::ParamTable table = model::ParamTable::for_model(config);
  tensor::HeapArenaAllocator heap;
  auto params = heap.allocate(static_cast<std::size_t>(table.count()), "parameters");
  auto grads = heap.allocate(static_cast<std::size_t>(table.count()), "gradients");
  const model::WeightsLoadReport report =
      model::load_model_weights(folder / "model.safetensors", table, params, config, 0);
  EXPECT_TRUE(report.initialized.empty());
  EXPECT_TRUE(report.unused.empty());
  model::EncoderModel encoder(config, table, params, grads);
  const std::vector<data::Batch> batches = read_fixture_batches(fixture, config);
  encoder.forward(batches[0], {false, 0, 0, 0});
  return {encoder.logits().begin(), encoder.logits().end()};
}

class ModernBertCli : public ::testing::TestWithParam<std::string> {};

TEST_P(ModernBertCli, LossesMatchPyTorchOnOneAndTwoWorkersAndTheCheckpointHasItsLogits) {
  const TempDir dir;
  const fs::path fixture = fixtures_dir() / "reference_heads" / GetParam();
  const ReferenceRun run = write_reference_run(dir, "reference_heads/" + GetParam());
  for (const int workers : {1, 2}) {
    const fs::path out = dir / fmt::format("out{}", workers);
    const double worst = train_like_the_reference(run, out, workers);
    ASSERT_FALSE(::testing::Test::HasFailure());
    std::printf("%s, %d worker(s): largest relative loss difference to PyTorch %.2e\n", GetParam().c_str(), workers,
                worst);

    const nlohmann::json config = nlohmann::json::parse(read_file(out / "config.json"));
    EXPECT_EQ(config.at("model_type"), "modernbert");
    EXPECT_EQ(config.at("architectures")[0], "ModernBertForSequenceClassification");
    EXPECT_EQ(config.at("layer_types").size(), 4u);
    EXPECT_EQ(config.at("global_rope_theta"), 160000.0);
    const io::SafetensorsReader weights(out / "model.safetensors");
    for (const char* name : {"model.embeddings.tok_embeddings.weight", "model.layers.1.attn_norm.weight",
                             "model.layers.0.attn.Wqkv.weight", "model.layers.3.mlp.Wi.weight", "model.final_norm.weight",
                             "head.dense.weight", "head.norm.weight", "classifier.weight", "classifier.bias"}) {
      EXPECT_TRUE(weights.contains(name)) << name;
    }
    EXPECT_FALSE(weights.contains("model.layers.0.attn_norm.weight"));  // Identity on layer 0
    EXPECT_FALSE(weights.contains("head.dense.bias"));                 // classifier_bias false

    const nlohmann::json expected = nlohmann::json::parse(read_file(fixture / "logits.json")).at("after_fp32_run");
    const std::vector<float> logits = first_batch_logits(out, fixture);
    std::size_t k = 0;
    for (const auto& row : expected) {
      for (const auto& value : row) {
        ASSERT_LT(k, logits.size());
        EXPECT_NEAR(logits[k], value.get<double>(), 1e-4) << "logit " << k;
        ++k;
      }
    }
    EXPECT_EQ(k, logits.size());
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ModernBertCli, ::testing::Values("modernbert_cls", "modernbert_mean"));

// A tiny ModernBERT from random weights over tests/fixtures/tokenizers/roberta_bpe (byte-level
// BPE), every dropout of its own on (embedding, mlp, classifier), a sliding window of 8 keys on
// each side: rows are longer than the window.
fs::path write_tiny_modernbert_config(const TempDir& dir) {
  const nlohmann::json tokenizer =
      nlohmann::json::parse(read_file(fixtures_dir() / "tokenizers/roberta_bpe/tokenizer.json"));
  const nlohmann::json config = {{"model_type", "modernbert"},
                                 {"vocab_size", tokenizer.at("model").at("vocab").size() + 1},
                                 {"hidden_size", 32},
                                 {"num_hidden_layers", 3},
                                 {"num_attention_heads", 2},
                                 {"intermediate_size", 48},
                                 {"max_position_embeddings", 128},
                                 {"local_attention", 16},
                                 {"global_attn_every_n_layers", 2},
                                 {"pad_token_id", 1},
                                 {"bos_token_id", 0},
                                 {"eos_token_id", 2},
                                 {"cls_token_id", 0},
                                 {"sep_token_id", 2},
                                 {"embedding_dropout", 0.1},
                                 {"mlp_dropout", 0.1},
                                 {"classifier_dropout", 0.1}};
  const fs::path path = dir / "config.json";
  write_file(path, config.dump(2));
  return path;
}

// run_qa's and run_ner's commands with a ModernBERT: the same model on 1 and 2 workers (dropout
// on: each row draws its masks whichever worker runs it), predictions written.
TEST(ModernBertTasks, QuestionAnsweringAndTokenClassificationTrainAlikeOnOneAndTwoWorkers) {
  const TempDir dir;
  const fs::path config = write_tiny_modernbert_config(dir);
  const std::string tokenizer = (fixtures_dir() / "tokenizers/roberta_bpe").string();
  const fs::path squad = fixtures_dir() / "squad_tiny";
  const fs::path ner = fixtures_dir() / "ner_tiny";
  const std::vector<ScriptTask> tasks = {
      {"squad",
       fmt::format("--task_name squad --train_file {} --validation_file {} --doc_stride 16 --do_eval",
                   (squad / "train.json").string(), (squad / "dev.json").string()),
       "ModernBertForQuestionAnswering", "eval_predictions.json"},
      {"ner",
       fmt::format("--task_name ner --train_file {} --validation_file {} --test_file {} --do_eval --do_predict",
                   (ner / "train.txt").string(), (ner / "test.txt").string(), (ner / "test.txt").string()),
       "ModernBertForTokenClassification", "predictions.txt"}};
  expect_tasks_train_alike(dir, config, tokenizer, tasks);
}

}  // namespace
}  // namespace shmtrain::testing
