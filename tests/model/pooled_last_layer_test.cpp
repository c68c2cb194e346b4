// The last layer computed for each sequence's first token only (model/pooled_last_layer.hpp)
// against the full layer (SHMTRAIN_FULL_LAST_LAYER=1), for every family and head it serves:
// the same loss, logits and every parameter's gradient within 1e-5, packed and padded, with
// every dropout on (the pooled rows draw the full layer's masks).
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model/fixture_batches.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/model/train_flops.hpp"
#include "support/test_support.hpp"

namespace pooled_last_layer_test {
namespace {

namespace fs = std::filesystem;
using namespace shmtrain;
namespace st = shmtrain::testing;

struct Case {
  const char* folder;  // under tests/fixtures
  model::ModelHead head;
};

struct Step {
  float loss = 0;
  std::vector<float> grads, logits;
};

class PooledLastLayer : public ::testing::TestWithParam<Case> {};

Step run_step(const model::BertConfig& config, const model::ParamTable& table, std::vector<float>& params,
              const data::Batch& batch, bool full) {
  if (full) {
    setenv("SHMTRAIN_FULL_LAST_LAYER", "1", 1);
  } else {
    unsetenv("SHMTRAIN_FULL_LAST_LAYER");
  }
  Step s;
  s.grads.assign(params.size(), 0.0f);
  model::EncoderModel m(config, table, params, s.grads);
  s.loss = m.forward(batch, {.train = true, .seed = 7, .rank = 0, .step = 3});
  s.logits.assign(m.logits().begin(), m.logits().end());
  m.backward();
  unsetenv("SHMTRAIN_FULL_LAST_LAYER");
  return s;
}

TEST_P(PooledLastLayer, EqualsTheFullLayer) {
  const Case c = GetParam();
  const fs::path folder = st::fixtures_dir() / c.folder;
  model::BertConfig config = model::read_hf_config(folder / "config.json");
  config.head = c.head;
  ASSERT_TRUE(model::last_layer_pooled(config));
  config.hidden_dropout_prob = 0.1;
  config.attention_probs_dropout_prob = 0.1;
  const model::ParamTable table = model::ParamTable::for_model(config);
  std::vector<float> params(static_cast<std::size_t>(table.count()));
  model::load_model_weights(folder / "model.safetensors", table, params, config, 0);

  const data::Batch padded = st::read_fixture_batches(folder, config)[0];
  for (const data::Batch& batch : {padded, st::packed_copy(padded)}) {
    const Step full = run_step(config, table, params, batch, true);
    const Step pooled = run_step(config, table, params, batch, false);
    const char* layout = batch.packed() ? "packed" : "padded";
    EXPECT_NEAR(pooled.loss, full.loss, 1e-5 * std::abs(full.loss)) << layout;
    EXPECT_LT(st::relative_difference(pooled.logits, full.logits), 1e-5) << layout;
    const double grads = st::relative_difference(pooled.grads, full.grads);
    std::printf("%s %s: loss %.8g vs %.8g, gradients %.2e relative\n", c.folder, layout, pooled.loss, full.loss,
                grads);
    EXPECT_LT(grads, 1e-5) << layout;
    EXPECT_GT(grads, 0.0) << layout << ": both runs took the same path (the sums' order differs between them)";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Families, PooledLastLayer,
    ::testing::Values(Case{"reference_tiny", model::ModelHead::kSequenceClassification},
                      Case{"reference_heads/distilbert_cls", model::ModelHead::kSequenceClassification},
                      Case{"reference_heads/roberta_cls", model::ModelHead::kSequenceClassification},
                      Case{"reference_heads/electra_cls", model::ModelHead::kSequenceClassification},
                      Case{"reference_heads/bert_mc", model::ModelHead::kMultipleChoice},
                      Case{"reference_heads/roberta_mc", model::ModelHead::kMultipleChoice},
                      Case{"reference_heads/electra_mc", model::ModelHead::kMultipleChoice}),
    [](const ::testing::TestParamInfo<Case>& param) {
      return fs::path(param.param.folder).filename().string();
    });

}  // namespace
}  // namespace pooled_last_layer_test
