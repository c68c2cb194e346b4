// ELECTRA through the built binary: the PyTorch fixture tests/fixtures/reference_heads/electra_cls
// (ElectraForSequenceClassification, embedding_size 16 projected to hidden 32) as a model folder
// with a vocab.txt, trained with the reference's settings on 1 and 2 workers: PyTorch's losses at
// every step, and the checkpoint written with Hugging Face's names.
#include <cstdio>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reference_run.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

TEST(ElectraCli, ClassifierLossesMatchPyTorchOnOneAndTwoWorkers) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir, "reference_heads/electra_cls");
  for (const int workers : {1, 2}) {
    const std::filesystem::path out = dir / fmt::format("out{}", workers);
    const double worst = train_like_the_reference(run, out, workers);
    ASSERT_FALSE(::testing::Test::HasFailure());
    std::printf("electra_cls, %d worker(s): largest relative loss difference to PyTorch %.2e\n", workers, worst);
    const nlohmann::json config = nlohmann::json::parse(read_file(out / "config.json"));
    EXPECT_EQ(config.at("model_type"), "electra");
    EXPECT_EQ(config.at("embedding_size"), 16);
    const io::SafetensorsReader weights(out / "model.safetensors");
    for (const char* name : {"electra.embeddings_project.weight", "classifier.dense.weight",
                             "classifier.out_proj.bias", "electra.encoder.layer.1.output.LayerNorm.weight"}) {
      EXPECT_TRUE(weights.contains(name)) << name;
    }
  }
}

}  // namespace
}  // namespace shmtrain::testing
