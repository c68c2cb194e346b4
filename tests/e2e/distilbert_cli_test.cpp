// DistilBERT sequence classification through the built binary: the PyTorch fixture
// tests/fixtures/reference_heads/distilbert_cls (3 labels) as a model folder and pre-tokenized
// JSON Lines, trained with the reference's settings; the losses are PyTorch's at every step.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "reference_run.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

TEST(DistilBertCli, ClassifierLossesMatchPyTorch) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir, "reference_heads/distilbert_cls");
  const auto out = dir / "out";
  const CliRun result = run_shmtrain(
      "train --do_train --model_name_or_path " + run.model.string() + " --train_file " + run.train_file.string() +
      " --do_eval false --output_dir " + out.string() +
      " --max_seq_length 24 --per_device_train_batch_size 4 --learning_rate 1e-3 --weight_decay 0.01"
      " --lr_scheduler_type constant --shuffle false --logging_steps 1 --num_train_epochs 1 --save_steps 0");
  ASSERT_EQ(result.exit_code, 0) << result.output();
  EXPECT_NE(result.out.find("model: DistilBertForSequenceClassification"), std::string::npos) << result.out;

  const auto losses = metric_by_step(out / "metrics.jsonl", "loss");
  ASSERT_EQ(losses.size(), run.losses.size());
  for (std::size_t i = 0; i < losses.size(); ++i) {
    // 1e-4 relative: the bound; fp32 summation order differs from PyTorch's.
    EXPECT_NEAR(losses[i].second, run.losses[i], 1e-4 * std::abs(run.losses[i])) << "step " << i + 1;
  }
  const model::BertConfig config = model::read_hf_config(out / "config.json");
  EXPECT_EQ(config.model_type, "distilbert");
  EXPECT_EQ(config.architectures, std::vector<std::string>{"DistilBertForSequenceClassification"});
  EXPECT_EQ(config.id2label, (std::vector<std::string>{"0", "1", "2"}));
  const io::SafetensorsReader weights(out / "model.safetensors");
  EXPECT_TRUE(weights.contains("pre_classifier.weight"));
  EXPECT_TRUE(weights.contains("distilbert.transformer.layer.0.sa_layer_norm.weight"));
}

}  // namespace
}  // namespace shmtrain::testing
