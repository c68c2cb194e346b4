#include "shmtrain/model/hf_config.hpp"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "support/test_support.hpp"

namespace shmtrain::model {
namespace {

void expect_same(const BertConfig& a, const BertConfig& b) {
  EXPECT_EQ(a.model_type, b.model_type);
  EXPECT_EQ(a.architectures, b.architectures);
  EXPECT_EQ(a.vocab_size, b.vocab_size);
  EXPECT_EQ(a.hidden_size, b.hidden_size);
  EXPECT_EQ(a.num_hidden_layers, b.num_hidden_layers);
  EXPECT_EQ(a.num_attention_heads, b.num_attention_heads);
  EXPECT_EQ(a.intermediate_size, b.intermediate_size);
  EXPECT_EQ(a.hidden_act, b.hidden_act);
  EXPECT_EQ(a.hidden_dropout_prob, b.hidden_dropout_prob);
  EXPECT_EQ(a.attention_probs_dropout_prob, b.attention_probs_dropout_prob);
  EXPECT_EQ(a.max_position_embeddings, b.max_position_embeddings);
  EXPECT_EQ(a.type_vocab_size, b.type_vocab_size);
  EXPECT_EQ(a.initializer_range, b.initializer_range);
  EXPECT_EQ(a.layer_norm_eps, b.layer_norm_eps);
  EXPECT_EQ(a.pad_token_id, b.pad_token_id);
  EXPECT_EQ(a.position_embedding_type, b.position_embedding_type);
  EXPECT_EQ(a.problem_type, b.problem_type);
  EXPECT_EQ(a.id2label, b.id2label);
}

TEST(HfConfig, ReadsTheFixture) {
  const BertConfig config =
      read_hf_config(shmtrain::testing::fixtures_dir() / "reference_tiny" / "config.json");
  EXPECT_EQ(config.model_type, "bert");
  EXPECT_EQ(config.architectures, std::vector<std::string>{"BertForSequenceClassification"});
  EXPECT_EQ(config.vocab_size, 1000);
  EXPECT_EQ(config.hidden_size, 64);
  EXPECT_EQ(config.num_hidden_layers, 2);
  EXPECT_EQ(config.num_attention_heads, 2);
  EXPECT_EQ(config.intermediate_size, 128);
  EXPECT_EQ(config.max_position_embeddings, 64);
  EXPECT_EQ(config.type_vocab_size, 2);
  EXPECT_EQ(config.hidden_dropout_prob, 0.0);
  EXPECT_EQ(config.attention_probs_dropout_prob, 0.0);
  EXPECT_EQ(config.initializer_range, 0.02);
  EXPECT_EQ(config.layer_norm_eps, 1e-12);
  EXPECT_EQ(config.pad_token_id, 0);
  EXPECT_EQ(config.problem_type, "single_label_classification");
  EXPECT_EQ(config.id2label, (std::vector<std::string>{"LABEL_0", "LABEL_1"}));
}

TEST(HfConfig, MissingKeysTakeTransformersDefaultsAndUnknownKeysAreIgnored) {
  const BertConfig config =
      parse_hf_config(R"({"hidden_size": 256, "num_attention_heads": 4, "gradient_checkpointing": false,
                          "transformers_version": "4.30.0", "_name_or_path": "x", "use_cache": true})",
                      "config.json");
  BertConfig expected;  // transformers' BertConfig() defaults: bert-base, 2 labels
  expected.hidden_size = 256;
  expected.num_attention_heads = 4;
  expect_same(config, expected);
  EXPECT_EQ(config.vocab_size, 30522);
  EXPECT_EQ(config.num_labels(), 2);
}

// A config with auto_map (the model's own code) is refused naming the classes it maps.
TEST(HfConfig, CustomCodeIsRefusedNamingItsClasses) {
  const std::string message = shmtrain::testing::error_of([] {
    parse_hf_config(R"({"model_type": "xlm-roberta", "auto_map": {"AutoConfig": "jinaai/xlm-roberta-flash--configuration_xlm_roberta.XLMRobertaFlashConfig",
                        "AutoModel": "jinaai/xlm-roberta-flash--modeling_lora.XLMRobertaLoRA"}})",
                    "jina/config.json");
  });
  EXPECT_NE(message.find("jina/config.json"), std::string::npos) << message;
  EXPECT_NE(message.find("auto_map"), std::string::npos) << message;
  EXPECT_NE(message.find("AutoModel -> jinaai/xlm-roberta-flash--modeling_lora.XLMRobertaLoRA"), std::string::npos)
      << message;
  EXPECT_NE(message.find("remove auto_map"), std::string::npos) << message;
}

TEST(HfConfig, LabelsFromNumLabelsOrLabel2id) {
  EXPECT_EQ(parse_hf_config(R"({"num_labels": 3})", "c").id2label,
            (std::vector<std::string>{"LABEL_0", "LABEL_1", "LABEL_2"}));
  EXPECT_TRUE(parse_hf_config(R"({"num_labels": 1, "problem_type": "regression"})", "c").is_regression());
  EXPECT_EQ(parse_hf_config(R"({"label2id": {"pos": 1, "neg": 0}})", "c").id2label,
            (std::vector<std::string>{"neg", "pos"}));
  EXPECT_EQ(parse_hf_config(R"({"id2label": {"1": "b", "0": "a"}, "num_labels": 2})", "c").id2label,
            (std::vector<std::string>{"a", "b"}));
}

TEST(HfConfig, WritesWhatTransformersWrites) {
  BertConfig config;
  config.hidden_size = 64;
  config.num_attention_heads = 2;
  config.hidden_dropout_prob = 0.0;
  config.id2label = {"neg", "pos"};
  config.problem_type = "single_label_classification";
  const std::string expected = R"({
  "architectures": [
    "BertForSequenceClassification"
  ],
  "attention_probs_dropout_prob": 0.1,
  "classifier_dropout": null,
  "dtype": "float32",
  "hidden_act": "gelu",
  "hidden_dropout_prob": 0.0,
  "hidden_size": 64,
  "id2label": {
    "0": "neg",
    "1": "pos"
  },
  "initializer_range": 0.02,
  "intermediate_size": 3072,
  "label2id": {
    "neg": 0,
    "pos": 1
  },
  "layer_norm_eps": 1e-12,
  "max_position_embeddings": 512,
  "model_type": "bert",
  "num_attention_heads": 2,
  "num_hidden_layers": 12,
  "pad_token_id": 0,
  "position_embedding_type": "absolute",
  "problem_type": "single_label_classification",
  "torch_dtype": "float32",
  "transformers_version": "4.30.0",
  "type_vocab_size": 2,
  "use_cache": true,
  "vocab_size": 30522
}
)";
  EXPECT_EQ(hf_config_to_json(config, "4.30.0"), expected);
}

TEST(HfConfig, ManyLabelsKeepIdOrderAndNonAsciiIsEscaped) {
  BertConfig config;
  config.id2label.clear();
  for (int i = 0; i < 12; ++i) config.id2label.push_back(fmt::format("L{}", i));
  config.id2label[11] = "caf\xc3\xa9";  // "café"
  const std::string text = hf_config_to_json(config);
  EXPECT_LT(text.find("\"2\": \"L2\""), text.find("\"10\": \"L10\""));  // numeric, not string, order
  EXPECT_NE(text.find("\"11\": \"caf\\u00e9\""), std::string::npos);
  EXPECT_EQ(text.find("transformers_version"), std::string::npos);
  EXPECT_EQ(parse_hf_config(text, "c").id2label, config.id2label);
}

TEST(HfConfig, RoundTripThroughAFile) {
  BertConfig config;
  config.vocab_size = 1234;
  config.hidden_size = 96;
  config.num_hidden_layers = 3;
  config.num_attention_heads = 6;
  config.intermediate_size = 200;
  config.hidden_dropout_prob = 0.125;
  config.attention_probs_dropout_prob = 0.05;
  config.max_position_embeddings = 77;
  config.type_vocab_size = 1;
  config.initializer_range = 0.037;
  config.layer_norm_eps = 1e-5;
  config.pad_token_id = 3;
  config.problem_type = "regression";
  config.id2label = {"score"};
  config.architectures = {"BertForSequenceClassification"};
  shmtrain::testing::TempDir dir;
  write_hf_config(dir / "config.json", config);
  expect_same(read_hf_config(dir / "config.json"), config);
  // And the fixture survives read -> write -> read.
  const BertConfig fixture =
      read_hf_config(shmtrain::testing::fixtures_dir() / "reference_tiny" / "config.json");
  write_hf_config(dir / "config.json", fixture);
  expect_same(read_hf_config(dir / "config.json"), fixture);
}

TEST(HfConfig, WriteRefusesAnInvalidConfigAndLeavesNoFile) {
  BertConfig config;
  config.hidden_size = 100;  // not a multiple of 12 heads
  shmtrain::testing::TempDir dir;
  EXPECT_THROW(write_hf_config(dir / "config.json", config), InputError);
  config.hidden_size = 96;
  config.id2label = {"a", "a"};
  EXPECT_THROW(write_hf_config(dir / "config.json", config), Error);
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(HfConfig, NestedTooDeepIsRefusedNamingTheFile) {
  shmtrain::testing::TempDir dir;
  const auto path = dir / "config.json";
  shmtrain::testing::write_file(
      path, "{\"id2label\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  EXPECT_EQ(shmtrain::testing::error_of([&] {
              read_hf_config(path);
            }).rfind(path.string() + ": JSON nests arrays and objects deeper than 512 levels", 0),
            0u);
}

struct BadConfig {
  const char* label;
  const char* json;
  const char* fragment;  // after "config.json: "
};

void PrintTo(const BadConfig& c, std::ostream* os) { *os << c.label; }

class HfConfigBad : public ::testing::TestWithParam<BadConfig> {};

TEST_P(HfConfigBad, IsRejectedNamingTheFileAndKey) {
  const BadConfig& c = GetParam();
  shmtrain::testing::TempDir dir;
  const auto path = dir / "config.json";
  shmtrain::testing::write_file(path, c.json);
  try {
    read_hf_config(path);
    FAIL() << "accepted; expected an error containing: " << c.fragment;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(path.string() + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(c.fragment), std::string::npos)
        << "message:  " << message << "\nexpected: " << c.fragment;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, HfConfigBad,
    ::testing::Values(
        BadConfig{"empty_file", "", "not valid JSON"},
        BadConfig{"not_json", "{\"hidden_size\": 64,}", "not valid JSON"},
        BadConfig{"not_object", "[64]", "must hold a JSON object, got array"},
        BadConfig{"int_as_string", R"({"hidden_size": "64"})",
                  "key 'hidden_size': must be an integer, got string"},
        BadConfig{"int_as_float", R"({"num_hidden_layers": 2.5})",
                  "key 'num_hidden_layers': must be an integer, got number 2.5"},
        BadConfig{"int_as_bool", R"({"vocab_size": true})",
                  "key 'vocab_size': must be an integer, got boolean"},
        BadConfig{"int_too_large", R"({"vocab_size": 18446744073709551615})",
                  "key 'vocab_size': 18446744073709551615 is too large"},
        BadConfig{"required_null", R"({"pad_token_id": null})",
                  "key 'pad_token_id': must be an integer, got null"},
        BadConfig{"double_as_string", R"({"hidden_dropout_prob": "0.1"})",
                  "key 'hidden_dropout_prob': must be a number, got string"},
        BadConfig{"string_as_number", R"({"hidden_act": 1})",
                  "key 'hidden_act': must be a string, got integer"},
        BadConfig{"architectures_not_list", R"({"architectures": "BertModel"})",
                  "key 'architectures': must be a list of strings"},
        BadConfig{"model_type_gpt2", R"({"model_type": "gpt2"})",
                  "key 'model_type': is 'gpt2'; shmtrain reads BERT (\"bert\"), DistilBERT (\"distilbert\"), RoBERTa"},
        BadConfig{"roberta_no_positions", R"({"model_type": "roberta", "max_position_embeddings": 2})",
                  "max_position_embeddings 2 leaves no position: RoBERTa's positions start at pad_token_id + 1 = 2"},
        BadConfig{
            "distilbert_sinusoidal", R"({"model_type": "distilbert", "sinusoidal_pos_embds": true})",
            "key 'sinusoidal_pos_embds': is true: shmtrain implements learned position embeddings only"},
        BadConfig{"distilbert_dim_as_string", R"({"model_type": "distilbert", "dim": "768"})",
                  "key 'dim': must be an integer, got string"},
        BadConfig{"distilbert_heads", R"({"model_type": "distilbert", "dim": 100})",
                  "dim 100 is not a multiple of n_heads 12"},
        BadConfig{"distilbert_activation", R"({"model_type": "distilbert", "activation": "relu"})",
                  "activation 'relu' is not supported"},
        BadConfig{"distilbert_qa_dropout", R"({"model_type": "distilbert", "qa_dropout": 1.5})",
                  "qa_dropout must be in [0, 1), got 1.5"},
        BadConfig{"id2label_not_object", R"({"id2label": ["a", "b"]})", "key 'id2label': must be an object"},
        BadConfig{"id2label_bad_id", R"({"id2label": {"zero": "a"}})",
                  "key 'id2label': 'zero' is not a label id"},
        BadConfig{"id2label_gap", R"({"id2label": {"0": "a", "2": "c"}})",
                  "key 'id2label': label ids must be 0..1 without gaps, but id 1 is missing"},
        BadConfig{"id2label_duplicate_id", R"({"id2label": {"0": "a", "00": "b"}})",
                  "key 'id2label': id 0 appears twice"},
        BadConfig{"id2label_label_not_string", R"({"id2label": {"0": 5}})",
                  "key 'id2label': label of id 0 must be a string, got integer"},
        BadConfig{"label2id_inconsistent",
                  R"({"id2label": {"0": "a", "1": "b"}, "label2id": {"a": 1, "b": 0}})",
                  "key 'label2id': does not match id2label: id2label[0] is 'a' but label2id gives it 1"},
        BadConfig{"label2id_extra", R"({"id2label": {"0": "a"}, "label2id": {"a": 0, "b": 1}})",
                  "key 'label2id': has 2 labels but id2label has 1"},
        BadConfig{"label2id_bad_id", R"({"label2id": {"a": "0"}})",
                  "key 'label2id': id of label 'a' must be a non-negative integer, got string"},
        BadConfig{"num_labels_disagrees", R"({"id2label": {"0": "a", "1": "b"}, "num_labels": 3})",
                  "key 'num_labels': is 3 but the label map has 2 labels"},
        BadConfig{"num_labels_zero", R"({"num_labels": 0})", "key 'num_labels': must be at least 1, got 0"},
        BadConfig{"classifier_dropout_differs", R"({"classifier_dropout": 0.2})",
                  "key 'classifier_dropout': 0.2 differs from hidden_dropout_prob 0.1"},
        BadConfig{"problem_type_unknown", R"({"problem_type": "ranking"})",
                  "key 'problem_type': 'ranking' is not one of"},
        BadConfig{"validate_heads", R"({"hidden_size": 100, "num_attention_heads": 12})",
                  "hidden_size 100 is not a multiple of num_attention_heads 12"},
        BadConfig{"validate_activation", R"({"hidden_act": "relu"})", "hidden_act 'relu' is not supported"},
        // Sizes are bounded before anything is allocated (issue #21).
        BadConfig{"num_labels_1e12", R"({"num_labels": 1000000000000})",
                  "key 'num_labels': is 1000000000000; shmtrain takes at most 131072"},
        BadConfig{"layers_1e12", R"({"num_hidden_layers": 1000000000000})",
                  "num_hidden_layers is 1000000000000; shmtrain takes at most 1024"},
        BadConfig{"hidden_2_pow_32", R"({"hidden_size": 4294967296, "num_attention_heads": 1})",
                  "hidden_size is 4294967296; shmtrain takes at most 32768"},
        BadConfig{"vocab_2_pow_40", R"({"vocab_size": 1099511627776})",
                  "vocab_size is 1099511627776; shmtrain takes at most 4194304"},
        BadConfig{"parameters_too_many",
                  R"({"hidden_size": 32768, "num_attention_heads": 1, "num_hidden_layers": 1024})",
                  "the model would have about 4606295736320 parameters (17159 GiB in fp32); shmtrain takes "
                  "at most"},
        BadConfig{"number_overflow", R"({"hidden_dropout_prob": 1e400})",
                  "key 'hidden_dropout_prob': number 1e400 is out of range"}),
    [](const ::testing::TestParamInfo<BadConfig>& param_info) { return param_info.param.label; });

// distilbert-base-uncased's config.json as the hub holds it.
constexpr const char* kDistilBertBase = R"({
  "activation": "gelu",
  "architectures": ["DistilBertForMaskedLM"],
  "attention_dropout": 0.1,
  "dim": 768,
  "dropout": 0.1,
  "hidden_dim": 3072,
  "initializer_range": 0.02,
  "max_position_embeddings": 512,
  "model_type": "distilbert",
  "n_heads": 12,
  "n_layers": 6,
  "pad_token_id": 0,
  "qa_dropout": 0.1,
  "seq_classif_dropout": 0.2,
  "sinusoidal_pos_embds": false,
  "tie_weights_": true,
  "transformers_version": "4.10.0.dev0",
  "vocab_size": 30522
})";

TEST(HfConfig, ReadsADistilBertConfigIntoTheSameFields) {
  const BertConfig config = parse_hf_config(kDistilBertBase, "config.json");
  EXPECT_EQ(config.model_type, "distilbert");
  EXPECT_FALSE(config.has_token_types());
  EXPECT_EQ(config.hidden_size, 768);
  EXPECT_EQ(config.num_hidden_layers, 6);
  EXPECT_EQ(config.num_attention_heads, 12);
  EXPECT_EQ(config.intermediate_size, 3072);
  EXPECT_EQ(config.hidden_act, "gelu");
  EXPECT_EQ(config.hidden_dropout_prob, 0.1);
  EXPECT_EQ(config.attention_probs_dropout_prob, 0.1);
  EXPECT_EQ(config.seq_classif_dropout, 0.2);
  EXPECT_EQ(config.qa_dropout, 0.1);
  EXPECT_EQ(config.layer_norm_eps, 1e-12);
  EXPECT_EQ(config.type_vocab_size, 0);
  EXPECT_EQ(config.num_labels(), 2);
  // DistilBertConfig's defaults: 6 layers, not BertConfig's 12.
  EXPECT_EQ(parse_hf_config(R"({"model_type": "distilbert"})", "c").num_hidden_layers, 6);
}

TEST(HfConfig, WritesADistilBertConfigThatReadsBack) {
  BertConfig config = parse_hf_config(kDistilBertBase, "config.json");
  config.head = ModelHead::kQuestionAnswering;
  config.architectures = {config.architecture()};
  config.hidden_size = 64;
  config.num_attention_heads = 2;
  config.num_hidden_layers = 2;
  config.intermediate_size = 128;
  config.qa_dropout = 0.0;
  const std::string expected = R"({
  "activation": "gelu",
  "architectures": [
    "DistilBertForQuestionAnswering"
  ],
  "attention_dropout": 0.1,
  "dim": 64,
  "dropout": 0.1,
  "dtype": "float32",
  "hidden_dim": 128,
  "id2label": {
    "0": "LABEL_0",
    "1": "LABEL_1"
  },
  "initializer_range": 0.02,
  "label2id": {
    "LABEL_0": 0,
    "LABEL_1": 1
  },
  "max_position_embeddings": 512,
  "model_type": "distilbert",
  "n_heads": 2,
  "n_layers": 2,
  "pad_token_id": 0,
  "qa_dropout": 0.0,
  "seq_classif_dropout": 0.2,
  "sinusoidal_pos_embds": false,
  "torch_dtype": "float32",
  "vocab_size": 30522
}
)";
  const std::string text = hf_config_to_json(config);
  EXPECT_EQ(text, expected);
  BertConfig back = parse_hf_config(text, "config.json");
  back.head = ModelHead::kQuestionAnswering;
  expect_same(back, config);
  EXPECT_EQ(back.seq_classif_dropout, config.seq_classif_dropout);
  EXPECT_EQ(back.qa_dropout, config.qa_dropout);
}

TEST(HfConfig, ArchitectureNamesTheClassOfTheModelTypeAndHead) {
  BertConfig config;
  EXPECT_EQ(config.architecture(), "BertForSequenceClassification");
  config.head = ModelHead::kQuestionAnswering;
  EXPECT_EQ(config.architecture(), "BertForQuestionAnswering");
  config = parse_hf_config(R"({"model_type": "distilbert"})", "c");
  EXPECT_EQ(config.architecture(), "DistilBertForSequenceClassification");
  config.head = ModelHead::kQuestionAnswering;
  EXPECT_EQ(config.architecture(), "DistilBertForQuestionAnswering");
  config.id2label = {"a", "b", "c"};
  EXPECT_NE(shmtrain::testing::error_of([&] {
              config.validate("c");
            }).find("question answering needs num_labels 2"),
            std::string::npos);
}

TEST(HfConfig, MissingFileSaysSo) {
  shmtrain::testing::TempDir dir;
  try {
    read_hf_config(dir / "config.json");
    FAIL() << "no error for a missing config.json";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "config.json").string() + ": file not found");
  }
}

TEST(HfConfig, NullDefaultsAreAccepted) {
  const BertConfig config =
      parse_hf_config(R"({"problem_type": null, "classifier_dropout": null, "architectures": null})", "c");
  EXPECT_EQ(config.problem_type, "");
  EXPECT_TRUE(config.architectures.empty());
  EXPECT_EQ(parse_hf_config(R"({"classifier_dropout": 0.1})", "c").hidden_dropout_prob, 0.1);
}

}  // namespace
}  // namespace shmtrain::model
