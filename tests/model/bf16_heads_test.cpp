// --bf16 with the question-answering, DistilBERT, RoBERTa and DeBERTa models: one step of each PyTorch fixture
// (tests/fixtures/reference_heads) in bf16 against fp32, the same loss and gradients within
// bf16's rounding; the heads stay in float, the encoder layers run their bf16 path.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/tensor/cpu_features.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"
#include "model/fixture_batches.hpp"
#include "support/test_support.hpp"

namespace shmtrain::model {
namespace {

namespace fs = std::filesystem;

class Bf16Heads : public ::testing::TestWithParam<std::pair<const char*, ModelHead>> {};

TEST_P(Bf16Heads, OneStepMatchesFp32WithinBf16Rounding) {
  if (!tensor::cpu_features().bf16_native()) GTEST_SKIP() << "this CPU has neither AVX512-BF16 nor AMX";
  const fs::path folder = testing::fixtures_dir() / "reference_heads" / GetParam().first;
  BertConfig config = read_hf_config(folder / "config.json");
  config.head = GetParam().second;
  const ParamTable table = ParamTable::for_model(config);
  std::vector<float> params(static_cast<std::size_t>(table.count()));
  load_model_weights(folder / "model.safetensors", table, params, config, 0);
  const data::Batch batch = testing::read_fixture_batches(folder, config)[0];

  auto step = [&](bool use_bf16, float& loss) {
    std::vector<float> grads(params.size(), 0.0f);
    std::vector<tensor::bf16> params16(params.size());
    EncoderModel model(config, table, params, grads);
    if (use_bf16) {
      tensor::convert_to_bf16(params16.data(), params.data(), static_cast<std::int64_t>(params.size()));
      model.set_bf16_weights(params16);
    }
    EXPECT_EQ(model.uses_bf16(), use_bf16);
    loss = model.forward(batch, {.train = true, .seed = 1, .rank = 0, .step = 0});
    model.backward();
    return grads;
  };
  float loss32 = 0, loss16 = 0;
  const std::vector<float> fp32 = step(false, loss32);
  const std::vector<float> reduced = step(true, loss16);
  const double grad_diff = testing::relative_difference(reduced, fp32);
  std::printf("%s bf16 vs fp32: loss %.2e, gradients %.2e relative\n", GetParam().first,
              std::abs(loss16 - loss32) / loss32, grad_diff);
  EXPECT_LT(std::abs(loss16 - loss32), 1e-2 * loss32);
  // As bf16_model_test: about 1e-3 of relative error through two layers; none would mean the
  // bf16 path was not taken.
  EXPECT_LT(grad_diff, 2e-2);
  EXPECT_GT(grad_diff, 1e-5);
}

INSTANTIATE_TEST_SUITE_P(Models, Bf16Heads,
                         ::testing::Values(std::pair{"bert_qa", ModelHead::kQuestionAnswering},
                                           std::pair{"distilbert_cls", ModelHead::kSequenceClassification},
                                           std::pair{"distilbert_qa", ModelHead::kQuestionAnswering},
                                           std::pair{"roberta_cls", ModelHead::kSequenceClassification},
                                           std::pair{"roberta_qa", ModelHead::kQuestionAnswering},
                                           std::pair{"deberta_cls", ModelHead::kSequenceClassification},
                                           std::pair{"deberta_c2p", ModelHead::kSequenceClassification},
                                           std::pair{"deberta_tok", ModelHead::kTokenClassification},
                                           std::pair{"deberta_qa", ModelHead::kQuestionAnswering}),
                         [](const auto& param_info) { return std::string(param_info.param.first); });

}  // namespace
}  // namespace shmtrain::model
