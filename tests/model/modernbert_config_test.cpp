// ModernBERT's config.json in both spellings (transformers 4.48-4.5x: global_attn_every_n_layers,
// global_rope_theta, local_rope_theta; transformers 5: layer_types, rope_parameters), what
// shmtrain refuses with the key named, what it writes back (both spellings where both can say
// it), and a Hub-style ModernBertForMaskedLM checkpoint loading into every task head with its
// decoder unused and the classifier new, as transformers' from_pretrained reports them.
#include <algorithm>
#include <cmath>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/model/param_table.hpp"
#include "shmtrain/tensor/allocator.hpp"
#include "support/test_support.hpp"

namespace shmtrain::model {
namespace {

namespace fs = std::filesystem;

fs::path modernbert_fixture(const std::string& name) {
  return testing::fixtures_dir() / "reference_heads" / name;
}

// Each layer's window (-1 global) and theta.
std::vector<std::pair<std::int64_t, double>> pattern(const BertConfig& c) {
  std::vector<std::pair<std::int64_t, double>> out;
  for (std::int64_t l = 0; l < c.num_hidden_layers; ++l) out.emplace_back(c.attention_window(l), c.rope_theta(l));
  return out;
}

TEST(ModernBertConfig, BothSpellingsReadToTheSameModel) {
  const BertConfig legacy = read_hf_config(modernbert_fixture("modernbert_cls") / "config.json");
  const BertConfig current = read_hf_config(modernbert_fixture("modernbert_mean") / "config.json");
  const std::vector<std::pair<std::int64_t, double>> expected = {
      {-1, 160000.0}, {4, 10000.0}, {4, 10000.0}, {-1, 160000.0}};  // local_attention 8: 4 keys each side
  EXPECT_EQ(pattern(legacy), expected);
  EXPECT_EQ(pattern(current), expected);
  for (const BertConfig* c : {&legacy, &current}) {
    EXPECT_EQ(c->model_type, "modernbert");
    EXPECT_FALSE(c->attention_bias);
    EXPECT_FALSE(c->mlp_bias);
    EXPECT_FALSE(c->norm_bias);
    EXPECT_FALSE(c->classifier_bias);
    EXPECT_FALSE(c->has_token_types());
    EXPECT_EQ(c->layer_norm_eps, 1e-5);
    EXPECT_EQ(c->pad_token_id, 126);
    EXPECT_EQ(c->cls_token_id, 124);
    EXPECT_EQ(c->max_sequence_length(), 64);
  }
  EXPECT_EQ(legacy.classifier_pooling, "cls");
  EXPECT_EQ(current.classifier_pooling, "mean");
  EXPECT_EQ(legacy.architecture(), "ModernBertForSequenceClassification");
}

TEST(ModernBertConfig, DefaultsAreModernBertBase) {
  const BertConfig c = parse_hf_config(R"({"model_type": "modernbert"})", "config.json");
  EXPECT_EQ(c.num_hidden_layers, 22);
  EXPECT_EQ(c.hidden_size, 768);
  EXPECT_EQ(c.intermediate_size, 1152);
  EXPECT_EQ(c.max_position_embeddings, 8192);
  EXPECT_EQ(c.vocab_size, 50368);
  EXPECT_EQ(c.attention_window(0), -1);
  EXPECT_EQ(c.attention_window(1), 64);
  EXPECT_EQ(c.attention_window(3), -1);
  EXPECT_EQ(c.rope_theta(0), 160000.0);
  EXPECT_EQ(c.rope_theta(2), 10000.0);
}

TEST(ModernBertConfig, LayerTypesWinAndSlidingWindowSetsLocalAttention) {
  const BertConfig c = parse_hf_config(R"({"model_type": "modernbert", "num_hidden_layers": 3,
      "global_attn_every_n_layers": 3, "sliding_window": 16,
      "layer_types": ["sliding_attention", "full_attention", "sliding_attention"],
      "rope_parameters": {"full_attention": {"rope_theta": 50000.0, "rope_type": "default"},
                          "sliding_attention": {"rope_theta": 2000.0}}})",
                                       "config.json");
  const std::vector<std::pair<std::int64_t, double>> expected = {{16, 2000.0}, {-1, 50000.0}, {16, 2000.0}};
  EXPECT_EQ(pattern(c), expected);
}

TEST(ModernBertConfig, WritesBothSpellingsThatReadBack) {
  BertConfig c = read_hf_config(modernbert_fixture("modernbert_cls") / "config.json");
  c.head = ModelHead::kTokenClassification;
  c.architectures = {c.architecture()};
  const nlohmann::json written = nlohmann::json::parse(hf_config_to_json(c, "4.50.0"));
  EXPECT_EQ(written.at("model_type"), "modernbert");
  EXPECT_EQ(written.at("architectures")[0], "ModernBertForTokenClassification");
  EXPECT_EQ(written.at("hidden_activation"), "gelu");
  EXPECT_EQ(written.at("norm_eps"), 1e-5);
  EXPECT_EQ(written.at("global_attn_every_n_layers"), 3);
  EXPECT_EQ(written.at("global_rope_theta"), 160000.0);
  EXPECT_EQ(written.at("local_attention"), 8);
  EXPECT_EQ(written.at("layer_types").size(), 4u);
  EXPECT_EQ(written.at("rope_parameters").at("sliding_attention").at("rope_theta"), 10000.0);
  for (const char* absent : {"hidden_dropout_prob", "attention_probs_dropout_prob", "type_vocab_size",
                             "layer_norm_eps", "hidden_act", "position_embedding_type"}) {
    EXPECT_FALSE(written.contains(absent)) << absent;
  }
  const BertConfig back = parse_hf_config(written.dump(), "written");
  EXPECT_EQ(pattern(back), pattern(c));
  EXPECT_EQ(back.classifier_pooling, c.classifier_pooling);
  EXPECT_FALSE(back.norm_bias);

  // A pattern global_attn_every_n_layers cannot express is written as layer_types alone.
  c.layer_types = {"sliding_attention", "full_attention", "full_attention", "sliding_attention"};
  const nlohmann::json custom = nlohmann::json::parse(hf_config_to_json(c, ""));
  EXPECT_FALSE(custom.contains("global_attn_every_n_layers"));
  EXPECT_FALSE(custom.contains("global_rope_theta"));
  EXPECT_EQ(pattern(parse_hf_config(custom.dump(), "written")), pattern(c));
}

struct BadModernBert {
  const char* label;
  const char* extra;     // keys added to {"model_type": "modernbert", "num_hidden_layers": 2, ...}
  const char* fragment;  // of the message
};

void PrintTo(const BadModernBert& c, std::ostream* os) { *os << c.label; }

class ModernBertConfigBad : public ::testing::TestWithParam<BadModernBert> {};

TEST_P(ModernBertConfigBad, IsRefusedNamingTheKey) {
  const BadModernBert& c = GetParam();
  const std::string json = std::string(R"({"model_type": "modernbert", "num_hidden_layers": 2)") + c.extra + "}";
  try {
    parse_hf_config(json, "m/config.json");
    FAIL() << "accepted; expected an error containing: " << c.fragment;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind("m/config.json: ", 0), 0u) << message;
    EXPECT_NE(message.find(c.fragment), std::string::npos) << "message:  " << message << "\nexpected: " << c.fragment;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ModernBertConfigBad,
    ::testing::Values(
        BadModernBert{"attention_dropout", R"(, "attention_dropout": 0.1)", "attention_dropout is 0.1"},
        BadModernBert{"layer_types_length", R"(, "layer_types": ["full_attention"])",
                      "key 'layer_types': has 1 entries for 2 layers"},
        BadModernBert{"layer_type_unknown", R"(, "layer_types": ["full_attention", "chunked_attention"])",
                      "key 'layer_types': entry string \"chunked_attention\" is not"},
        BadModernBert{"rope_type", R"(, "rope_parameters": {"full_attention": {"rope_type": "yarn"}})",
                      "key 'rope_parameters': 'full_attention' has rope_type 'yarn'"},
        BadModernBert{"rope_key", R"(, "rope_parameters": {"rope_theta": 10000.0})",
                      "key 'rope_parameters': key 'rope_theta' is not a layer type"},
        BadModernBert{"rope_scaling", R"(, "rope_scaling": {"type": "linear", "factor": 2.0})",
                      "key 'rope_scaling': is object"},
        BadModernBert{"pooling", R"(, "classifier_pooling": "max")", "classifier_pooling 'max' is not"},
        BadModernBert{"activation", R"(, "hidden_activation": "gelu_new")", "hidden_activation 'gelu_new' is not"},
        BadModernBert{"classifier_activation", R"(, "classifier_activation": "silu")",
                      "classifier_activation 'silu' is not supported"},
        BadModernBert{"every_n_zero", R"(, "global_attn_every_n_layers": 0)",
                      "global_attn_every_n_layers must be at least 1"},
        BadModernBert{"odd_head", R"(, "hidden_size": 36, "num_attention_heads": 4)", "is odd; rotary"},
        BadModernBert{"theta", R"(, "global_rope_theta": 0.5)", "global_rope_theta must be a number above 1"},
        BadModernBert{"bias_as_string", R"(, "norm_bias": "false")", "key 'norm_bias': must be true or false"},
        BadModernBert{"mlp_dropout", R"(, "mlp_dropout": 1.0)", "mlp_dropout must be in [0, 1)"}));

// A Hub-style ModernBertForMaskedLM checkpoint (the Hub's base models) loads into every task
// head: the encoder and head.* are used, decoder.* is unused, the classifier is initialised.
TEST(ModernBertCheckpoint, MaskedLmCheckpointLoadsIntoEveryHead) {
  for (const ModelHead head :
       {ModelHead::kSequenceClassification, ModelHead::kTokenClassification, ModelHead::kQuestionAnswering}) {
    BertConfig config = read_hf_config(modernbert_fixture("modernbert_hub") / "config.json");
    config.head = head;
    config.id2label = {"A", "B"};
    const ParamTable table = ParamTable::for_model(config);
    tensor::HeapArenaAllocator heap;
    auto params = heap.allocate(static_cast<std::size_t>(table.count()), "parameters");
    const WeightsLoadReport report =
        load_model_weights(modernbert_fixture("modernbert_hub") / "model.safetensors", table, params, config, 7);
    EXPECT_EQ(report.unused, std::vector<std::string>{"decoder.bias"});
    EXPECT_EQ(report.initialized, (std::vector<std::string>{"classifier.weight", "classifier.bias"}));
    // HF's _init_weights: the classifier at hidden_size^-0.5, truncated at 2 std; bias 0.
    const ParamEntry& w = table.at("classifier.weight");
    const double bound = 2.0 / std::sqrt(static_cast<double>(config.hidden_size));
    double sum_sq = 0;
    for (std::int64_t i = w.offset; i < w.offset + w.size; ++i) {
      EXPECT_LE(std::abs(params[i]), bound);
      sum_sq += static_cast<double>(params[i]) * params[i];
    }
    EXPECT_GT(sum_sq, 0.0);
    const ParamEntry& b = table.at("classifier.bias");
    EXPECT_TRUE(std::all_of(params.begin() + b.offset, params.begin() + b.offset + b.size,
                            [](float v) { return v == 0.0f; }));
  }
}

// Without head.* (a ModernBertModel checkpoint), the prediction head is new too; a missing
// encoder tensor is an error naming it.
TEST(ModernBertCheckpoint, BaseModelCheckpointInitialisesTheHeadAndMissingEncoderTensorsFail) {
  BertConfig config = read_hf_config(modernbert_fixture("modernbert_cls") / "config.json");
  const ParamTable table = ParamTable::for_model(config);
  const testing::TempDir dir;
  std::vector<io::TensorToWrite> tensors;
  std::vector<std::vector<float>> data;
  data.reserve(table.entries().size());
  for (const ParamEntry& e : table.entries()) {
    if (e.name.starts_with("head.") || e.name.starts_with("classifier.")) continue;
    data.emplace_back(static_cast<std::size_t>(e.size), 0.5f);
    tensors.push_back({e.name.substr(std::string("model.").size()), e.shape, data.back()});  // ModernBertModel's names
  }
  io::write_safetensors(dir / "model.safetensors", tensors);
  tensor::HeapArenaAllocator heap;
  auto params = heap.allocate(static_cast<std::size_t>(table.count()), "parameters");
  const WeightsLoadReport report = load_model_weights(dir / "model.safetensors", table, params, config, 1);
  EXPECT_EQ(report.initialized,
            (std::vector<std::string>{"head.dense.weight", "head.norm.weight", "classifier.weight", "classifier.bias"}));
  EXPECT_TRUE(report.unused.empty());

  tensors.erase(std::remove_if(tensors.begin(), tensors.end(),
                               [](const io::TensorToWrite& t) { return t.name == "layers.2.mlp.Wi.weight"; }),
                tensors.end());
  io::write_safetensors(dir / "model.safetensors", tensors);
  EXPECT_THROW(
      {
        try {
          load_model_weights(dir / "model.safetensors", table, params, config, 1);
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("tensor 'model.layers.2.mlp.Wi.weight' is missing"), std::string::npos)
              << e.what();
          throw;
        }
      },
      InputError);
}

}  // namespace
}  // namespace shmtrain::model
