// DeBERTa-v2/v3's config.json (pos_att_type as a string or a list, relative-position settings,
// ContextPooler keys) read, refused by key where shmtrain does not build the shape, and written
// back; the parameter table as transformers names it (no absolute positions without
// position_biased_input, rel_embeddings and its LayerNorm, pos_key_proj without share_att_key);
// a Hub DebertaV2ForMaskedLM checkpoint loading into every head. Training against PyTorch:
// head_parity_test.
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
// Its own namespace: the unity build puts test files side by side.
namespace deberta_test {
namespace {

std::filesystem::path deberta_fixture(const std::string& name) {
  return testing::fixtures_dir() / "reference_heads" / name;
}

TEST(DebertaConfig, ReadsDebertaV3SettingsAndWritesThemBack) {
  const BertConfig c = read_hf_config(deberta_fixture("deberta_cls") / "config.json");
  EXPECT_EQ(c.model_type, "deberta-v2");
  EXPECT_TRUE(c.relative_attention);
  EXPECT_TRUE(c.c2p());
  EXPECT_TRUE(c.p2c());
  EXPECT_TRUE(c.share_att_key);
  EXPECT_FALSE(c.position_biased_input);
  EXPECT_FALSE(c.has_position_table());
  EXPECT_FALSE(c.has_token_types());
  EXPECT_EQ(c.relative_span(), 8);
  EXPECT_EQ(c.layer_norm_eps, 1e-7);
  const ParamTable table = ParamTable::for_model(c);
  EXPECT_EQ(table.find("deberta.embeddings.position_embeddings.weight"), nullptr);
  EXPECT_EQ(table.find("deberta.embeddings.token_type_embeddings.weight"), nullptr);
  EXPECT_EQ(table.at("deberta.encoder.rel_embeddings.weight").shape, (std::vector<std::int64_t>{16, 32}));
  EXPECT_EQ(table.at("deberta.encoder.rel_embeddings.weight").kind, ParamKind::kWeight);  // decays, as HF's
  EXPECT_EQ(table.at("deberta.encoder.LayerNorm.weight").kind, ParamKind::kNorm);
  EXPECT_NE(table.find("deberta.encoder.layer.1.attention.self.query_proj.weight"), nullptr);
  EXPECT_EQ(table.find("deberta.encoder.layer.0.attention.self.pos_key_proj.weight"), nullptr);
  EXPECT_NE(table.find("pooler.dense.weight"), nullptr);
  // The shared table comes before the layers, so it is final when layer 0 is.
  EXPECT_LT(table.at("deberta.encoder.rel_embeddings.weight").offset,
            table.at("deberta.encoder.layer.0.attention.self.query_proj.weight").offset);

  const nlohmann::json written = nlohmann::json::parse(hf_config_to_json(c, ""));
  EXPECT_EQ(written.at("pos_att_type"), "p2c|c2p");  // as read
  EXPECT_EQ(written.at("position_buckets"), 8);
  EXPECT_EQ(written.at("architectures")[0], "DebertaV2ForSequenceClassification");
  const BertConfig again = parse_hf_config(written.dump(), "written");
  EXPECT_EQ(again.pos_att_type, c.pos_att_type);
  EXPECT_EQ(again.norm_rel_ebd, "layer_norm");
}

TEST(DebertaConfig, ContentToPositionOnlyWithItsOwnProjection) {
  const BertConfig c = read_hf_config(deberta_fixture("deberta_c2p") / "config.json");
  EXPECT_TRUE(c.c2p());
  EXPECT_FALSE(c.p2c());
  EXPECT_EQ(c.relative_span(), 16);  // no buckets: max_relative_positions
  const ParamTable table = ParamTable::for_model(c);
  EXPECT_NE(table.find("deberta.embeddings.position_embeddings.weight"), nullptr);
  EXPECT_NE(table.find("deberta.embeddings.token_type_embeddings.weight"), nullptr);
  EXPECT_EQ(table.find("deberta.encoder.LayerNorm.weight"), nullptr);  // norm_rel_ebd "none"
  EXPECT_EQ(table.at("deberta.encoder.layer.1.attention.self.pos_key_proj.weight").shape,
            (std::vector<std::int64_t>{32, 32}));
  EXPECT_EQ(table.find("deberta.encoder.layer.1.attention.self.pos_query_proj.weight"), nullptr);
  const nlohmann::json written = nlohmann::json::parse(hf_config_to_json(c, ""));
  EXPECT_EQ(written.at("pos_att_type"), nlohmann::json::array({"c2p"}));
}

TEST(DebertaConfig, RefusesWhatItDoesNotBuildNamingTheKey) {
  const std::string base = R"({"model_type": "deberta-v2", "hidden_size": 32, "num_attention_heads": 2,
      "num_hidden_layers": 1, "intermediate_size": 64, "vocab_size": 100, "relative_attention": true,
      "position_buckets": 8, "pos_att_type": "p2c|c2p", )";
  struct Bad {
    const char* json;
    const char* message;
  };
  for (const Bad& bad : {
           Bad{R"("pos_att_type": "c2p|p2p"})", "key 'pos_att_type': has 'p2p'"},
           Bad{R"("pos_att_type": 3})", "key 'pos_att_type': must be a string"},
           Bad{R"("conv_kernel_size": 3})", "key 'conv_kernel_size': is 3"},
           Bad{R"("embedding_size": 16})", "key 'embedding_size': is 16"},
           Bad{R"("norm_rel_ebd": "batch_norm"})", "norm_rel_ebd 'batch_norm' is not supported"},
           Bad{R"("relative_attention": false})", "relative_attention is false"},
           Bad{R"("pooler_hidden_size": 16})", "pooler_hidden_size 16 differs"},
           Bad{R"("pooler_hidden_act": "tanh"})", "pooler_hidden_act 'tanh'"},
           Bad{R"("cls_dropout": 0.3})", "key 'cls_dropout'"},
           Bad{R"("position_buckets": 1})", "position_buckets must be at least 2"},
           Bad{R"("max_relative_positions": 4})", "needs max_relative_positions"},
       }) {
    std::string json = base + bad.json;
    // A key given twice keeps its last value (nlohmann::json): a case overrides the base.
    try {
      parse_hf_config(json, "d/config.json");
      FAIL() << bad.json << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("d/config.json"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad.message), std::string::npos) << e.what();
    }
  }
}

TEST(DebertaCheckpoint, MaskedLmCheckpointLoadsIntoEveryHead) {
  struct Expected {
    ModelHead head;
    std::vector<std::string> initialized;
  };
  for (const Expected& expected :
       {Expected{ModelHead::kSequenceClassification,
                 {"pooler.dense.weight", "pooler.dense.bias", "classifier.weight", "classifier.bias"}},
        Expected{ModelHead::kTokenClassification, {"classifier.weight", "classifier.bias"}},
        Expected{ModelHead::kQuestionAnswering, {"qa_outputs.weight", "qa_outputs.bias"}}}) {
    BertConfig config = read_hf_config(deberta_fixture("deberta_hub") / "config.json");
    config.head = expected.head;
    const ParamTable table = ParamTable::for_model(config);
    tensor::HeapArenaAllocator heap;
    auto params = heap.allocate(static_cast<std::size_t>(table.count()), "parameters");
    const WeightsLoadReport report =
        load_model_weights(deberta_fixture("deberta_hub") / "model.safetensors", table, params, config, 3);
    EXPECT_EQ(report.initialized, expected.initialized);
    EXPECT_EQ(report.unused.size(), 11u);
    for (const std::string& name : report.unused) {
      EXPECT_TRUE(name.starts_with("lm_predictions.") || name.starts_with("mask_predictions.")) << name;
    }
  }
}

}  // namespace
}  // namespace deberta_test
}  // namespace shmtrain::model
