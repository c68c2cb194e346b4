// The model's bf16 path (--bf16) against its fp32 path on one step: the same loss and
// gradients within bf16's rounding, and measurably not the fp32 numbers (the bf16 GEMMs ran).
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/bench/bert_workload.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/model/init.hpp"
#include "shmtrain/tensor/cpu_features.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"
#include "model/fixture_batches.hpp"

namespace shmtrain::model {
namespace {

struct StepOutput {
  float loss = 0;
  std::vector<float> grads;
};

StepOutput one_step(const BertConfig& config, const ParamTable& table, std::vector<float>& params, bool use_bf16,
                    const data::Batch& batch, const StepContext& context) {
  std::vector<float> grads(static_cast<std::size_t>(table.count()), 0.0f);
  std::vector<tensor::bf16> params16(params.size());
  EncoderModel model(config, table, params, grads);
  if (use_bf16) {
    tensor::convert_to_bf16(params16.data(), params.data(), static_cast<std::int64_t>(params.size()));
    model.set_bf16_weights(params16);
  }
  StepOutput out;
  out.loss = model.forward(batch, context);
  model.backward();
  out.grads = grads;
  return out;
}

TEST(Bf16Model, GradientsMatchFp32WithinBf16Rounding) {
  if (!tensor::cpu_features().bf16_native()) GTEST_SKIP() << "this CPU has neither AVX512-BF16 nor AMX";
  BertConfig config = bench::bench_preset("tiny");
  config.hidden_dropout_prob = 0.1;
  config.attention_probs_dropout_prob = 0.1;
  const ParamTable table = ParamTable::for_sequence_classification(config);
  std::vector<float> params(static_cast<std::size_t>(table.count()));
  init_all_parameters(table, params, config, 7);
  const data::Batch batch = bench::synthetic_batch(config, 4, 48, 3);
  const StepContext context{.train = true, .seed = 5, .rank = 0, .step = 1};

  const StepOutput fp32 = one_step(config, table, params, false, batch, context);
  const StepOutput reduced = one_step(config, table, params, true, batch, context);
  const double loss_diff = std::abs(reduced.loss - fp32.loss) / fp32.loss;
  const double grad_diff = testing::relative_difference(reduced.grads, fp32.grads);
  std::printf("bf16 vs fp32, one step: loss %.2e, gradients %.2e relative\n", loss_diff, grad_diff);
  EXPECT_LT(loss_diff, 1e-2);
  // Each GEMM input carries 2^-9 relative rounding; through a few layers the gradients keep
  // about 1e-3 of relative error. More would mean a wrong operand; none, a path not taken.
  EXPECT_LT(grad_diff, 2e-2);
  EXPECT_GT(grad_diff, 1e-5);
  // A weight whose gradient comes only from bf16 products (the pooler and classifier stay fp32).
  const ParamEntry& inter = table.at("bert.encoder.layer.0.intermediate.dense.weight");
  auto slice = [&](const std::vector<float>& g) {
    return std::vector<float>(g.begin() + inter.offset, g.begin() + inter.offset + inter.size);
  };
  const double inter_diff = testing::relative_difference(slice(reduced.grads), slice(fp32.grads));
  std::printf("layer 0 intermediate.dense.weight gradient: %.2e relative\n", inter_diff);
  EXPECT_LT(inter_diff, 2e-2);
  EXPECT_GT(inter_diff, 1e-4);
  // Same batch, same weights: the bf16 step is deterministic.
  EXPECT_EQ(one_step(config, table, params, true, batch, context).grads, reduced.grads);
}

}  // namespace
}  // namespace shmtrain::model
