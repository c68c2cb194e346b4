// DeBERTa through the built binary: the PyTorch fixtures deberta_cls (DeBERTa-v3's settings) and
// deberta_c2p (c2p alone, its own pos_key_proj, absolute positions and token types) as model
// folders, trained with the reference's settings on 1 and 2 workers to PyTorch's losses, the
// checkpoint written with Hugging Face's names and pos_att_type as read; and run_glue's, run_qa's
// and run_ner's commands with a tiny DeBERTa over the spm.model tokenizer fixture (no
// tokenizer.json), every dropout on, the same model on 1 and 2 workers, spm.model beside the
// checkpoint.
#include <cstdio>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reference_run.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
// Its own namespace: the unity build puts test files side by side.
namespace deberta_cli_test {
namespace {

namespace fs = std::filesystem;

class DebertaCli : public ::testing::TestWithParam<const char*> {};

TEST_P(DebertaCli, ClassifierLossesMatchPyTorchOnOneAndTwoWorkers) {
  const std::string fixture = GetParam();
  const TempDir dir;
  const ReferenceRun run = write_reference_run(dir, "reference_heads/" + fixture);
  const nlohmann::json reference = nlohmann::json::parse(read_file(run.model / "config.json"));
  for (const int workers : {1, 2}) {
    const fs::path out = dir / fmt::format("out{}", workers);
    const double worst = train_like_the_reference(run, out, workers);
    ASSERT_FALSE(::testing::Test::HasFailure());
    std::printf("%s, %d worker(s): largest relative loss difference to PyTorch %.2e\n", fixture.c_str(),
                workers, worst);
    const nlohmann::json config = nlohmann::json::parse(read_file(out / "config.json"));
    EXPECT_EQ(config.at("model_type"), "deberta-v2");
    EXPECT_EQ(config.at("architectures")[0], "DebertaV2ForSequenceClassification");
    EXPECT_EQ(config.at("pos_att_type"), reference.at("pos_att_type"));
    const io::SafetensorsReader weights(out / "model.safetensors");
    for (const char* name : {"deberta.encoder.rel_embeddings.weight", "pooler.dense.weight",
                             "classifier.bias", "deberta.encoder.layer.1.attention.self.query_proj.weight"}) {
      EXPECT_TRUE(weights.contains(name)) << name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, DebertaCli, ::testing::Values("deberta_cls", "deberta_c2p"),
                         [](const ::testing::TestParamInfo<const char*>& param_info) {
                           return std::string(param_info.param);
                         });

// A tiny DeBERTa-v3 from random weights over tests/fixtures/tokenizers/deberta_spm (vocabulary:
// its 768 pieces and [MASK]), log buckets (rows are longer than 8), every dropout on.
fs::path write_tiny_deberta_config(const TempDir& dir) {
  const nlohmann::json config = {{"model_type", "deberta-v2"},
                                 {"vocab_size", 769},
                                 {"hidden_size", 32},
                                 {"num_hidden_layers", 2},
                                 {"num_attention_heads", 2},
                                 {"intermediate_size", 64},
                                 {"max_position_embeddings", 128},
                                 {"relative_attention", true},
                                 {"position_buckets", 8},
                                 {"max_relative_positions", -1},
                                 {"pos_att_type", "p2c|c2p"},
                                 {"share_att_key", true},
                                 {"norm_rel_ebd", "layer_norm"},
                                 {"position_biased_input", false},
                                 {"type_vocab_size", 0},
                                 {"layer_norm_eps", 1e-7},
                                 {"hidden_dropout_prob", 0.1},
                                 {"attention_probs_dropout_prob", 0.1},
                                 {"pooler_dropout", 0.1},
                                 {"pad_token_id", 0}};
  const fs::path path = dir / "config.json";
  write_file(path, config.dump(2));
  return path;
}

TEST(DebertaTasks, GlueQuestionAnsweringAndNerTrainAlikeOnOneAndTwoWorkers) {
  const TempDir dir;
  const fs::path config = write_tiny_deberta_config(dir);
  const std::string tokenizer = (fixtures_dir() / "tokenizers/deberta_spm").string();
  const fs::path squad = fixtures_dir() / "squad_tiny";
  const fs::path ner = fixtures_dir() / "ner_tiny";
  const fs::path glue = source_dir() / "demo/paraphrase";
  const std::vector<ScriptTask> tasks = {
      {"mrpc",
       fmt::format("--task_name mrpc --data_dir {} --max_train_samples 64 --max_eval_samples 32 --do_eval",
                   glue.string()),
       "DebertaV2ForSequenceClassification", "eval_results.json"},
      {"squad",
       fmt::format("--task_name squad --train_file {} --validation_file {} --doc_stride 16 --do_eval",
                   (squad / "train.json").string(), (squad / "dev.json").string()),
       "DebertaV2ForQuestionAnswering", "eval_predictions.json"},
      {"ner",
       fmt::format(
           "--task_name ner --train_file {} --validation_file {} --test_file {} --do_eval --do_predict",
           (ner / "train.txt").string(), (ner / "test.txt").string(), (ner / "test.txt").string()),
       "DebertaV2ForTokenClassification", "predictions.txt"}};
  expect_tasks_train_alike(dir, config, tokenizer, tasks, {"spm.model"});
}

}  // namespace
}  // namespace deberta_cli_test
}  // namespace shmtrain::testing
