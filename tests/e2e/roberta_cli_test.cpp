// RoBERTa-family models through the built binary. Classification: the PyTorch fixtures
// tests/fixtures/reference_heads/{roberta_cls,xlmr_cls} as model folders (tokenizer.json with
// <pad> = 1), trained with the reference's settings on 1 and on 2 workers: the losses are
// PyTorch's at every step. Question answering: SQuAD windows cut with a byte-level BPE
// tokenizer (<s> q </s></s> c </s>, offsets trimmed of 'Ġ') train the same on 1 and 2 workers
// and write predictions, for evaluation and for --do_predict alike.
#include <cmath>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reference_run.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace {

namespace fs = std::filesystem;

class RobertaCli : public ::testing::TestWithParam<std::string> {};

TEST_P(RobertaCli, ClassifierLossesMatchPyTorchOnOneAndTwoWorkers) {
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir, "reference_heads/" + GetParam());
  for (const int workers : {1, 2}) {
    const fs::path out = dir / fmt::format("out{}", workers);
    const double worst = train_like_the_reference(run, out, workers);
    ASSERT_FALSE(::testing::Test::HasFailure());
    std::printf("%s, %d worker(s): largest relative loss difference to PyTorch %.2e\n", GetParam().c_str(), workers, worst);
    const model::BertConfig config = model::read_hf_config(out / "config.json");
    EXPECT_EQ(config.pad_token_id, 1);
    const io::SafetensorsReader weights(out / "model.safetensors");
    EXPECT_TRUE(weights.contains("classifier.out_proj.weight"));
    EXPECT_TRUE(weights.contains("roberta.encoder.layer.1.output.LayerNorm.weight"));
    EXPECT_TRUE(fs::exists(out / "tokenizer.json"));
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, RobertaCli, ::testing::Values("roberta_cls", "xlmr_cls"));

TEST(RobertaSquad, ByteLevelWindowsTrainTheSameOnTwoWorkersAndPredict) {
  const TempDir dir;
  const fs::path config = write_tiny_roberta_config(dir);
  const fs::path squad = fixtures_dir() / "squad_tiny";
  std::vector<std::pair<long, double>> single;
  for (const int workers : {1, 2}) {
    const fs::path out = dir / fmt::format("out{}", workers);
    const CliRun result = run_shmtrain(fmt::format(
        "train --do_train --task_name squad --config_name {} --tokenizer_name {} --train_file {} --validation_file {} --output_dir {}"
        " --max_seq_length 64 --doc_stride 16 --per_device_train_batch_size {} --per_device_eval_batch_size 4"
        " --nproc_per_node {} --learning_rate 1e-3 --shuffle false --logging_steps 1 --num_train_epochs 1"
        " --save_steps 0 --seed 3 --do_eval --do_predict --test_file {}",
        config.string(), (fixtures_dir() / "tokenizers/roberta_bpe").string(), (squad / "train.json").string(),
        (squad / "dev.json").string(), out.string(), 8 / workers, workers, (squad / "dev.json").string()));
    ASSERT_EQ(result.exit_code, 0) << result.output();
    EXPECT_NE(result.out.find("RobertaForQuestionAnswering"), std::string::npos) << result.out;
    const auto losses = metric_by_step(out / "metrics.jsonl", "loss");
    ASSERT_FALSE(losses.empty());
    if (workers == 1) {
      single = losses;
    } else {
      expect_same_losses(losses, single);
    }
    const nlohmann::json predictions = nlohmann::json::parse(read_file(out / "eval_predictions.json"));
    EXPECT_FALSE(predictions.empty());
    // --do_predict on the same file: run_qa's predict_predictions.json, the same answers.
    EXPECT_EQ(nlohmann::json::parse(read_file(out / "predict_predictions.json")), predictions);
  }
}

}  // namespace
}  // namespace shmtrain::testing
