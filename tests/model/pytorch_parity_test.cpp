// The whole model against PyTorch: tests/fixtures/reference_tiny holds a tiny HF-format BERT, 20
// batches, and PyTorch's loss, gradient norm, first-step gradients and final weights for 20
// AdamW steps (lr 1e-3, weight decay 0.01 except biases/LayerNorm, clip 1.0, dropout 0).
#include <cmath>
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "shmtrain/model/encoder_model.hpp"
#include "shmtrain/optim/adamw.hpp"
#include "shmtrain/train/optimizer_slots.hpp"
#include "shmtrain/optim/clip.hpp"
#include "model/fixture_batches.hpp"
#include "support/test_support.hpp"

namespace shmtrain::model {
namespace {

namespace fs = std::filesystem;

fs::path fixture() { return testing::fixtures_dir() / "reference_tiny"; }

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::vector<float> entry_values(std::span<const float> arena, const ParamEntry& e) {
  return {arena.begin() + e.offset, arena.begin() + e.offset + e.size};
}

TEST(PytorchParity, TwentyAdamWStepsReproduceLossesGradientsAndFinalWeights) {
  const BertConfig config = read_hf_config(fixture() / "config.json");
  const ParamTable table = ParamTable::for_sequence_classification(config);
  tensor::HeapArenaAllocator heap;
  auto params = heap.allocate(static_cast<std::size_t>(table.count()), "parameters");
  auto grads = heap.allocate(static_cast<std::size_t>(table.count()), "gradients");
  const WeightsLoadReport report = load_model_weights(fixture() / "model.safetensors", table, params, config, 0);
  EXPECT_TRUE(report.initialized.empty());
  EXPECT_TRUE(report.unused.empty());

  EncoderModel model(config, table, params, grads);
  optim::AdamW adamw(train::optimizer_slots(table), {0.9f, 0.999f, 1e-8f, 0.01f}, heap);
  const std::vector<data::Batch> batches = testing::read_fixture_batches(fixture(), config);
  const nlohmann::json ref = read_json(fixture() / "reference_losses.json");
  const io::SafetensorsReader step0(fixture() / "step0_grads.safetensors");

  double worst_relative = 0.0;
  for (std::size_t step = 0; step < 20; ++step) {
    std::fill(grads.begin(), grads.end(), 0.0f);
    const float loss = model.forward(batches[step % batches.size()], {true, 0, 0, step});
    model.backward();
    if (step == 0) {
      for (const ParamEntry& e : table.entries()) {
        // Gradients are O(1e-2..1); float accumulation orders differ from PyTorch's.
        EXPECT_TRUE(testing::all_close(entry_values(grads, e), step0.load(e.name), 2e-6, 1e-3)) << e.name;
      }
    }
    const double norm = optim::global_grad_norm(grads);
    adamw.step(params, grads, 1e-3f, {}, optim::clip_coefficient(norm, 1.0));
    const double expected = ref["losses"][step];
    EXPECT_NEAR(loss, expected, 1e-4 * std::abs(expected)) << "step " << step;
    worst_relative = std::max(worst_relative, std::abs(loss - expected) / std::abs(expected));
    const double expected_norm = ref["grad_norms_before_clip"][step];
    EXPECT_NEAR(norm, expected_norm, 1e-3 * expected_norm) << "step " << step;
  }
  std::printf("largest relative loss difference to PyTorch over 20 steps: %.2e\n", worst_relative);
  const io::SafetensorsReader final_weights(fixture() / "final.safetensors");
  for (const ParamEntry& e : table.entries()) {
    EXPECT_TRUE(testing::all_close(entry_values(params, e), final_weights.load(e.name), 1e-4)) << e.name;
  }
}

TEST(PytorchParity, DeterministicRunToRun) {
  const BertConfig config = read_hf_config(fixture() / "config.json");
  const ParamTable table = ParamTable::for_sequence_classification(config);
  const std::vector<data::Batch> batches = testing::read_fixture_batches(fixture(), config);
  auto run = [&] {
    tensor::HeapArenaAllocator heap;
    auto params = heap.allocate(static_cast<std::size_t>(table.count()), "parameters");
    auto grads = heap.allocate(static_cast<std::size_t>(table.count()), "gradients");
    load_model_weights(fixture() / "model.safetensors", table, params, config, 0);
    BertConfig with_dropout = config;
    with_dropout.hidden_dropout_prob = 0.1;
    with_dropout.attention_probs_dropout_prob = 0.1;
    EncoderModel model(with_dropout, table, params, grads);
    std::vector<float> losses;
    for (std::uint64_t step = 0; step < 3; ++step) {
      std::fill(grads.begin(), grads.end(), 0.0f);
      losses.push_back(model.forward(batches[step], {true, 42, 0, step}));
      model.backward();
    }
    losses.insert(losses.end(), grads.begin(), grads.end());
    return losses;
  };
  EXPECT_EQ(run(), run());
}

TEST(ModelWeights, MissingHeadIsInitialisedAndWrongShapeIsNamed) {
  const BertConfig config = read_hf_config(fixture() / "config.json");
  const ParamTable table = ParamTable::for_sequence_classification(config);
  tensor::HeapArenaAllocator heap;
  auto params = heap.allocate(static_cast<std::size_t>(table.count()), "parameters");
  const io::SafetensorsReader full(fixture() / "model.safetensors");
  testing::TempDir dir;
  // A base-model checkpoint: no classifier, names without the "bert." prefix.
  std::vector<std::vector<float>> keep;
  std::vector<io::TensorToWrite> tensors;
  for (const io::TensorInfo& t : full.tensors()) {
    if (t.name.starts_with("classifier.")) continue;
    keep.push_back(full.load(t.name));
    tensors.push_back({t.name.substr(5), t.shape, keep.back()});
  }
  io::write_safetensors(dir / "base.safetensors", tensors);
  const auto report = load_model_weights(dir / "base.safetensors", table, params, config, 3);
  EXPECT_EQ(report.initialized, (std::vector<std::string>{"classifier.weight", "classifier.bias"}));
  const ParamEntry& bias = table.at("classifier.bias");
  EXPECT_EQ(entry_values(params, bias), std::vector<float>(2, 0.0f));

  BertConfig three_labels = config;
  three_labels.id2label = {"a", "b", "c"};
  const ParamTable bigger = ParamTable::for_sequence_classification(three_labels);
  auto params3 = heap.allocate(static_cast<std::size_t>(bigger.count()), "parameters");
  try {
    load_model_weights(fixture() / "model.safetensors", bigger, params3, three_labels, 0);
    FAIL() << "no error for a shape mismatch";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("tensor 'classifier.weight' has shape [2, 64] but config.json implies [3, 64]"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace shmtrain::model
