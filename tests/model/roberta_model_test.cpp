// RoBERTa-family specifics beyond the PyTorch parity of head_parity_test.cpp: a Hub-style
// checkpoint (lm_head.*, roberta.pooler.*, no classifier) loads, names what it leaves unused
// and what the head initialises; positions count from the ids; the position table's padding
// row never trains; config.json reads back as written; the usable positions are 2 fewer.
#include <gtest/gtest.h>

#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "model/fixture_batches.hpp"
#include "support/test_support.hpp"

namespace shmtrain::model {
namespace {

namespace fs = std::filesystem;

fs::path heads(const std::string& name) { return testing::fixtures_dir() / "reference_heads" / name; }

TEST(Roberta, AHubCheckpointLoadsListingUnusedAndInitialisedTensors) {
  BertConfig config = read_hf_config(heads("roberta_hub") / "config.json");
  config.id2label = {"a", "b", "c"};
  const ParamTable table = ParamTable::for_model(config);
  std::vector<float> params(static_cast<std::size_t>(table.count()));
  const WeightsLoadReport report = load_model_weights(heads("roberta_hub") / "model.safetensors", table, params, config, 7);
  EXPECT_EQ(report.initialized, (std::vector<std::string>{"classifier.dense.weight", "classifier.dense.bias",
                                                          "classifier.out_proj.weight", "classifier.out_proj.bias"}));
  std::vector<std::string> unused = report.unused;
  std::sort(unused.begin(), unused.end());
  EXPECT_EQ(unused, (std::vector<std::string>{"lm_head.bias", "lm_head.dense.bias", "lm_head.dense.weight",
                                              "lm_head.layer_norm.bias", "lm_head.layer_norm.weight",
                                              "roberta.pooler.dense.bias", "roberta.pooler.dense.weight"}));
  // The encoder is the task model's: same tensors as roberta_cls's initial weights.
  BertConfig cls_config = read_hf_config(heads("roberta_cls") / "config.json");
  const ParamTable cls_table = ParamTable::for_model(cls_config);
  std::vector<float> cls_params(static_cast<std::size_t>(cls_table.count()));
  load_model_weights(heads("roberta_cls") / "model.safetensors", cls_table, cls_params, cls_config, 0);
  const ParamEntry& e = table.at("roberta.encoder.layer.1.output.dense.weight");
  const ParamEntry& f = cls_table.at("roberta.encoder.layer.1.output.dense.weight");
  EXPECT_TRUE(std::equal(params.begin() + e.offset, params.begin() + e.offset + e.size, cls_params.begin() + f.offset));
}

TEST(Roberta, ConfigReadsBackAsWrittenAndHoldsTwoFewerPositions) {
  const BertConfig config = read_hf_config(heads("roberta_cls") / "config.json");
  EXPECT_EQ(config.model_type, "roberta");
  EXPECT_EQ(config.pad_token_id, 1);
  EXPECT_EQ(config.type_vocab_size, 1);
  EXPECT_DOUBLE_EQ(config.layer_norm_eps, 1e-5);
  EXPECT_EQ(config.max_sequence_length(), config.max_position_embeddings - 2);
  EXPECT_EQ(config.architecture(), "RobertaForSequenceClassification");
  const std::string text = hf_config_to_json(config);
  const BertConfig again = parse_hf_config(text, "written");
  EXPECT_EQ(hf_config_to_json(again), text);
  EXPECT_NE(text.find("\"bos_token_id\": 0"), std::string::npos) << text;
  EXPECT_NE(text.find("\"eos_token_id\": 2"), std::string::npos) << text;
  const BertConfig xlmr = read_hf_config(heads("xlmr_cls") / "config.json");
  EXPECT_EQ(xlmr.architecture(), "XLMRobertaForSequenceClassification");
  BertConfig camembert = parse_hf_config(R"({"model_type": "camembert", "max_position_embeddings": 514})", "c");
  EXPECT_EQ(camembert.architecture(), "CamembertForSequenceClassification");
  EXPECT_EQ(camembert.max_sequence_length(), 512);
}

// A token's outputs do not depend on the padding beside its row, before or after: positions
// come from the ids (BERT's 0, 1, 2, ... would shift under left padding).
TEST(Roberta, PositionsComeFromTheIdsSoPaddingOnEitherSideChangesNothing) {
  BertConfig config = read_hf_config(heads("roberta_qa") / "config.json");
  config.head = ModelHead::kQuestionAnswering;
  config.id2label = {"start", "end"};
  const ParamTable table = ParamTable::for_model(config);
  std::vector<float> params(static_cast<std::size_t>(table.count()));
  std::vector<float> grads(params.size());
  load_model_weights(heads("roberta_qa") / "model.safetensors", table, params, config, 0);
  EncoderModel model(config, table, params, grads);
  const auto row = [](std::vector<std::int32_t> ids) {
    data::Batch b;
    b.batch = 1;
    b.seq = static_cast<std::int64_t>(ids.size());
    for (const std::int32_t id : ids) b.attention_mask.push_back(id == 1 ? 0 : 1);
    b.token_type_ids.assign(ids.size(), 0);
    b.input_ids = std::move(ids);
    return b;
  };
  // (start, end) logits of the real tokens, which begin at `first`.
  const auto logits_of = [&](const data::Batch& b, std::size_t first) {
    model.forward(b, {});
    const auto l = model.row_logits(0);
    return std::vector<float>(l.begin() + static_cast<std::ptrdiff_t>(2 * first),
                              l.begin() + static_cast<std::ptrdiff_t>(2 * (first + 5)));
  };
  const std::vector<float> expected = logits_of(row({0, 17, 42, 99, 2}), 0);
  const std::vector<float> right = logits_of(row({0, 17, 42, 99, 2, 1, 1, 1}), 0);
  const std::vector<float> left = logits_of(row({1, 1, 1, 0, 17, 42, 99, 2}), 3);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(right[i], expected[i], 1e-5) << i;
    EXPECT_NEAR(left[i], expected[i], 1e-5) << i;
  }
}

TEST(Roberta, ThePositionTablesPaddingRowGetsNoGradient) {
  const BertConfig config = read_hf_config(heads("roberta_qa") / "config.json");
  BertConfig qa = config;
  qa.head = ModelHead::kQuestionAnswering;
  qa.id2label = {"start", "end"};
  const ParamTable table = ParamTable::for_model(qa);
  std::vector<float> params(static_cast<std::size_t>(table.count()));
  std::vector<float> grads(params.size());
  load_model_weights(heads("roberta_qa") / "model.safetensors", table, params, qa, 0);
  EncoderModel model(qa, table, params, grads);
  const data::Batch batch = testing::read_fixture_batches(heads("roberta_qa"), qa)[0];
  model.forward(batch, {true, 0, 0, 0});
  model.backward();
  const ParamEntry& positions = table.at("roberta.embeddings.position_embeddings.weight");
  const float* pad_row = grads.data() + positions.offset + qa.pad_token_id * qa.hidden_size;
  for (std::int64_t c = 0; c < qa.hidden_size; ++c) EXPECT_EQ(pad_row[c], 0.0f);
  const float* first_row = grads.data() + positions.offset + (qa.pad_token_id + 1) * qa.hidden_size;
  double norm = 0;
  for (std::int64_t c = 0; c < qa.hidden_size; ++c) norm += std::abs(first_row[c]);
  EXPECT_GT(norm, 0.0);
}

}  // namespace
}  // namespace shmtrain::model
