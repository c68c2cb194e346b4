// The whole model on a packed batch (rows end to end, no padding) against the same rows padded,
// for every head and family the fixtures hold: classification losses, logits and every
// parameter's gradient within 1e-5; question answering's per-token logits within 1e-5 and its
// loss equal to the padded logits' softmax over each row's real tokens (the packed semantics,
// qa_head.hpp). fp32, and bf16 where the CPU has it.
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "model/fixture_batches.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/tensor/cpu_features.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"
#include "support/test_support.hpp"

namespace shmtrain::model {
namespace {

namespace fs = std::filesystem;

struct Case {
  const char* folder;  // under tests/fixtures
  ModelHead head;
  bool use_bf16;
};

struct StepResult {
  float loss = 0;
  std::vector<float> grads;
  std::vector<std::vector<float>> row_logits;
};

class PackedModel : public ::testing::TestWithParam<Case> {};

// -log softmax over a row's first `length` (start or end) logits at `target`.
double row_cross_entropy(std::span<const float> pairs, std::int64_t length, int which, std::int32_t target) {
  double max_value = -INFINITY;
  for (std::int64_t t = 0; t < length; ++t) max_value = std::max<double>(max_value, pairs[2 * t + which]);
  double sum = 0;
  for (std::int64_t t = 0; t < length; ++t) sum += std::exp(pairs[2 * t + which] - max_value);
  return -(pairs[2 * target + which] - max_value - std::log(sum));
}

TEST_P(PackedModel, OneStepMatchesThePaddedBatch) {
  const Case c = GetParam();
  if (c.use_bf16 && !tensor::cpu_features().bf16_native())
    GTEST_SKIP() << "this CPU has neither AVX512-BF16 nor AMX";
  const fs::path folder = testing::fixtures_dir() / c.folder;
  BertConfig config = read_hf_config(folder / "config.json");
  config.head = c.head;
  // Dropout off: the padded batch draws masks over its padding too, so the masks would differ.
  config.hidden_dropout_prob = config.attention_probs_dropout_prob = 0.0;
  config.seq_classif_dropout = config.qa_dropout = 0.0;
  const ParamTable table = ParamTable::for_model(config);
  std::vector<float> params(static_cast<std::size_t>(table.count()));
  load_model_weights(folder / "model.safetensors", table, params, config, 0);
  std::vector<tensor::bf16> params16(params.size());
  tensor::convert_to_bf16(params16.data(), params.data(), static_cast<std::int64_t>(params.size()));

  const data::Batch padded = testing::read_fixture_batches(folder, config)[0];
  const data::Batch packed = testing::packed_copy(padded);
  ASSERT_TRUE(packed.packed());
  ASSERT_LT(packed.tokens(), padded.tokens()) << "the fixture batch has padding to drop";
  validate_batch(packed, config, "packed");

  auto step = [&](const data::Batch& batch) {
    StepResult r;
    r.grads.assign(params.size(), 0.0f);
    EncoderModel model(config, table, params, r.grads);
    if (c.use_bf16) model.set_bf16_weights(params16);
    r.loss = model.forward(batch, {.train = true, .seed = 1, .rank = 0, .step = 0});
    for (std::int64_t b = 0; b < batch.batch; ++b) {
      const std::span<const float> row = model.row_logits(b);
      r.row_logits.emplace_back(row.begin(), row.end());
    }
    model.backward();
    return r;
  };
  const StepResult on_padded = step(padded);
  const StepResult on_packed = step(packed);

  // fp32: the same sums in another order. bf16: a float sum that differs in its last bit can
  // round a GEMM input to the neighbouring bf16 value.
  const double tolerance = c.use_bf16 ? 2e-3 : 1e-5;
  for (std::int64_t b = 0; b < padded.batch; ++b) {
    std::vector<float> expected = on_padded.row_logits[b];
    if (c.head == ModelHead::kQuestionAnswering)
      expected.resize(static_cast<std::size_t>(2 * packed.row_length(b)));
    EXPECT_LT(testing::relative_difference(on_packed.row_logits[b], expected), tolerance) << "row " << b;
  }
  if (c.head == ModelHead::kQuestionAnswering) {
    double expected_loss = 0;
    for (std::int64_t b = 0; b < padded.batch; ++b) {
      for (int which = 0; which < 2; ++which) {
        const std::int32_t target = which == 0 ? padded.start_positions[b] : padded.end_positions[b];
        expected_loss += row_cross_entropy(on_padded.row_logits[b], packed.row_length(b), which, target);
      }
    }
    expected_loss /= 2.0 * static_cast<double>(padded.batch);
    EXPECT_NEAR(on_packed.loss, expected_loss, tolerance * expected_loss);
    return;
  }
  EXPECT_NEAR(on_packed.loss, on_padded.loss, tolerance * std::abs(on_padded.loss));
  const double grad_diff = testing::relative_difference(on_packed.grads, on_padded.grads);
  std::printf("%s%s packed vs padded: gradients %.2e relative\n", c.folder, c.use_bf16 ? " bf16" : "",
              grad_diff);
  EXPECT_LT(grad_diff, c.use_bf16 ? 1e-2 : 1e-5);
}

INSTANTIATE_TEST_SUITE_P(
    Heads, PackedModel,
    ::testing::Values(Case{"reference_tiny", ModelHead::kSequenceClassification, false},
                      Case{"reference_heads/distilbert_cls", ModelHead::kSequenceClassification, false},
                      Case{"reference_heads/bert_qa", ModelHead::kQuestionAnswering, false},
                      Case{"reference_heads/distilbert_qa", ModelHead::kQuestionAnswering, false},
                      Case{"reference_tiny", ModelHead::kSequenceClassification, true},
                      Case{"reference_heads/distilbert_cls", ModelHead::kSequenceClassification, true},
                      Case{"reference_heads/bert_qa", ModelHead::kQuestionAnswering, true},
                      Case{"reference_heads/roberta_cls", ModelHead::kSequenceClassification, false},
                      Case{"reference_heads/roberta_qa", ModelHead::kQuestionAnswering, false},
                      Case{"reference_heads/xlmr_cls", ModelHead::kSequenceClassification, true}),
    [](const ::testing::TestParamInfo<Case>& param) {
      std::string name = fs::path(param.param.folder).filename().string();
      name += param.param.head == ModelHead::kQuestionAnswering ? "_qa" : "_cls";
      return name + (param.param.use_bf16 ? "_bf16" : "_fp32");
    });

}  // namespace
}  // namespace shmtrain::model
