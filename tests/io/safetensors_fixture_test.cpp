// Reading the checkpoints PyTorch + the Python safetensors library wrote for the tiny
// reference BERT (tests/fixtures/reference_tiny/README.md). Expected values were read with an
// independent Python struct-based decoder, or follow from how HF initialises the model.
#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

#include "shmtrain/io/safetensors.hpp"
#include "support/test_support.hpp"

namespace shmtrain::io {
namespace {

std::filesystem::path fixture(const char* name) {
  return shmtrain::testing::fixtures_dir() / "reference_tiny" / name;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST(SafetensorsFixture, ListsEveryTensorWithItsShape) {
  const SafetensorsReader reader(fixture("model.safetensors"));
  EXPECT_EQ(reader.metadata(), (std::map<std::string, std::string>{{"format", "pt"}}));
  // 5 embedding tensors + 16 per layer x 2 layers + pooler 2 + classifier 2.
  ASSERT_EQ(reader.tensors().size(), 41u);
  EXPECT_EQ(reader.tensors().front().name, "bert.embeddings.LayerNorm.bias");
  EXPECT_EQ(reader.tensors().back().name, "classifier.weight");
  EXPECT_TRUE(std::is_sorted(reader.tensors().begin(), reader.tensors().end(),
                             [](const TensorInfo& a, const TensorInfo& b) { return a.name < b.name; }));
  const std::vector<std::pair<const char*, std::vector<std::int64_t>>> shapes = {
      {"bert.embeddings.word_embeddings.weight", {1000, 64}},
      {"bert.embeddings.position_embeddings.weight", {64, 64}},
      {"bert.embeddings.token_type_embeddings.weight", {2, 64}},
      {"bert.encoder.layer.1.intermediate.dense.weight", {128, 64}},
      {"bert.encoder.layer.1.output.dense.weight", {64, 128}},
      {"bert.pooler.dense.weight", {64, 64}},
      {"classifier.weight", {2, 64}},
      {"classifier.bias", {2}},
  };
  for (const auto& [name, shape] : shapes) {
    const TensorInfo& info = reader.info(name);
    EXPECT_EQ(info.shape, shape) << name;
    EXPECT_EQ(info.dtype, Dtype::kF32) << name;
  }
  std::size_t total = 0;
  for (const TensorInfo& info : reader.tensors()) total += info.byte_size();
  EXPECT_EQ(total, 558344u);  // the data buffer, covered exactly
}

TEST(SafetensorsFixture, InitialValuesAreHuggingFaceInitialisation) {
  const SafetensorsReader reader(fixture("model.safetensors"));
  for (const TensorInfo& info : reader.tensors()) {
    SCOPED_TRACE(info.name);
    const std::vector<float> values = reader.load(info.name);
    if (ends_with(info.name, "LayerNorm.weight")) {
      EXPECT_TRUE(shmtrain::testing::all_close(values, std::vector<float>(values.size(), 1.0f), 0.0));
    } else if (ends_with(info.name, ".bias")) {  // LayerNorm and Linear biases start at zero
      EXPECT_TRUE(shmtrain::testing::all_close(values, std::vector<float>(values.size(), 0.0f), 0.0));
    } else {
      // normal(0, 0.02) weights: nothing near 10 standard deviations.
      const auto [low, high] = std::minmax_element(values.begin(), values.end());
      EXPECT_GT(*low, -0.2f);
      EXPECT_LT(*high, 0.2f);
    }
  }
  // torch's padding_idx: the row of pad_token_id 0 is zero, the next one is not.
  const std::span<const float> words = reader.view_f32("bert.embeddings.word_embeddings.weight");
  EXPECT_TRUE(shmtrain::testing::all_close(words.subspan(0, 64), std::vector<float>(64, 0.0f), 0.0));
  EXPECT_EQ(words[64], static_cast<float>(-0.010249786078929901));
  EXPECT_EQ(words[65], static_cast<float>(-0.015516268089413643));

  const std::vector<float> pooler = reader.load("bert.pooler.dense.weight");
  EXPECT_EQ(pooler[0], static_cast<float>(-0.009406477212905884));
  EXPECT_EQ(pooler[1], static_cast<float>(-0.022602858021855354));
  EXPECT_EQ(pooler[64], static_cast<float>(0.031975243240594864));
  const std::vector<float> classifier = reader.load("classifier.weight");
  EXPECT_EQ(classifier[0], static_cast<float>(-0.023018231615424156));
  EXPECT_EQ(classifier[2], static_cast<float>(0.01704537309706211));
}

TEST(SafetensorsFixture, FinalWeightsAndGradientsLoad) {
  const SafetensorsReader final_weights(fixture("final.safetensors"));
  EXPECT_EQ(final_weights.tensors().size(), 41u);
  const std::vector<float> gamma = final_weights.load("bert.embeddings.LayerNorm.weight");
  EXPECT_EQ(gamma[0], static_cast<float>(0.9963104724884033));
  EXPECT_EQ(gamma[2], static_cast<float>(0.9951356649398804));
  EXPECT_EQ(final_weights.load("classifier.weight")[0], static_cast<float>(-0.025292893871665));

  const SafetensorsReader grads(fixture("step0_grads.safetensors"));
  EXPECT_EQ(grads.tensors().size(), 41u);
  const std::vector<float> dwords = grads.load("bert.embeddings.word_embeddings.weight");
  // The padding row gets no gradient.
  EXPECT_TRUE(
      shmtrain::testing::all_close(std::span(dwords).subspan(0, 64), std::vector<float>(64, 0.0f), 0.0));
  EXPECT_EQ(grads.load("bert.pooler.dense.weight")[1], static_cast<float>(0.00020914850756525993));
  EXPECT_EQ(grads.load("classifier.weight")[1], static_cast<float>(5.369044515646237e-07));
}

}  // namespace
}  // namespace shmtrain::io
