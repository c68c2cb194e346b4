// ELECTRA's config.json (embedding_size below hidden_size, so embeddings_project exists) read and
// written back, and a discriminator checkpoint (ElectraForPreTraining, the Hub's form) loading
// into every task head with discriminator_predictions.* unused and the head new, as
// transformers' from_pretrained reports them. Training against PyTorch: head_parity_test.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/model/param_table.hpp"
#include "shmtrain/tensor/allocator.hpp"
#include "support/test_support.hpp"

namespace shmtrain::model {
namespace {

std::filesystem::path electra_fixture(const std::string& name) {
  return testing::fixtures_dir() / "reference_heads" / name;
}

TEST(ElectraConfig, ReadsTheEmbeddingWidthAndWritesItBack) {
  const BertConfig c = read_hf_config(electra_fixture("electra_cls") / "config.json");
  EXPECT_EQ(c.model_type, "electra");
  EXPECT_EQ(c.embedding_width(), 16);
  EXPECT_EQ(c.hidden_size, 32);
  EXPECT_TRUE(c.projects_embeddings());
  const ParamTable table = ParamTable::for_model(c);
  EXPECT_EQ(table.at("electra.embeddings.word_embeddings.weight").shape, (std::vector<std::int64_t>{128, 16}));
  EXPECT_EQ(table.at("electra.embeddings_project.weight").shape, (std::vector<std::int64_t>{32, 16}));
  EXPECT_EQ(table.find("bert.pooler.dense.weight"), nullptr);
  const nlohmann::json written = nlohmann::json::parse(hf_config_to_json(c, ""));
  EXPECT_EQ(written.at("embedding_size"), 16);
  EXPECT_EQ(written.at("architectures")[0], "ElectraForSequenceClassification");
  EXPECT_EQ(parse_hf_config(written.dump(), "written").embedding_width(), 16);

  const BertConfig defaults = parse_hf_config(R"({"model_type": "electra"})", "config.json");
  EXPECT_EQ(defaults.embedding_width(), 128);  // ElectraConfig's defaults: electra-small's shapes
  EXPECT_EQ(defaults.hidden_size, 256);
  try {
    parse_hf_config(R"({"model_type": "electra", "embedding_size": 0})", "e/config.json");
    FAIL() << "embedding_size 0 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("e/config.json: embedding_size must be in [1, "), std::string::npos)
        << e.what();
  }
}

TEST(ElectraCheckpoint, DiscriminatorCheckpointLoadsIntoEveryHead) {
  struct Expected {
    ModelHead head;
    std::vector<std::string> initialized;
  };
  for (const Expected& expected :
       {Expected{ModelHead::kSequenceClassification,
                 {"classifier.dense.weight", "classifier.dense.bias", "classifier.out_proj.weight",
                  "classifier.out_proj.bias"}},
        Expected{ModelHead::kTokenClassification, {"classifier.weight", "classifier.bias"}},
        Expected{ModelHead::kQuestionAnswering, {"qa_outputs.weight", "qa_outputs.bias"}}}) {
    BertConfig config = read_hf_config(electra_fixture("electra_hub") / "config.json");
    config.head = expected.head;
    const ParamTable table = ParamTable::for_model(config);
    tensor::HeapArenaAllocator heap;
    auto params = heap.allocate(static_cast<std::size_t>(table.count()), "parameters");
    const WeightsLoadReport report =
        load_model_weights(electra_fixture("electra_hub") / "model.safetensors", table, params, config, 3);
    EXPECT_EQ(report.initialized, expected.initialized);
    EXPECT_EQ(report.unused,
              (std::vector<std::string>{"discriminator_predictions.dense.bias", "discriminator_predictions.dense.weight",
                                        "discriminator_predictions.dense_prediction.bias",
                                        "discriminator_predictions.dense_prediction.weight"}));
  }
}

}  // namespace
}  // namespace shmtrain::model
