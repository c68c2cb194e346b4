// run_mlm's and run_swag's jobs end to end: their README commands, verbatim but for the program
// name (run_mlm, run_swag), against a Hugging Face cache this test builds (a tiny RoBERTa saved as
// RobertaForMaskedLM under FacebookAI/roberta-base, as the Hub's is; wikitext and swag parquet
// splits of tests/fixtures/hub/); and each task from random weights on 1 and 2 workers.
#include <cmath>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "e2e/hub_cache_fixture.hpp"
#include "reference_run.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
// Its own namespace: the unity build puts test files side by side.
namespace mlm_swag_cli_test {
namespace {

namespace fs = std::filesystem;
using namespace hub_cache;  // NOLINT: the cache builders

// English lines (the demo's MRPC sentences) as a .txt file, and SWAG's columns as a CSV.
fs::path demo_text(const TempDir& dir) {
  std::string text;
  const std::string tsv = read_file(source_dir() / "demo/paraphrase/train.tsv");
  std::size_t lines = 0;
  for (std::size_t begin = tsv.find('\n') + 1; begin < tsv.size() && lines < 400; ++lines) {
    const std::size_t end = tsv.find('\n', begin);
    const std::string line = tsv.substr(begin, end - begin);
    text += line.substr(line.rfind('\t') + 1) + "\n";
    begin = end + 1;
  }
  write_file(dir / "text.txt", text);
  return dir / "text.txt";
}

// A tiny RoBERTa trained one masked-LM step: RobertaForMaskedLM with its lm_head, as roberta-base.
fs::path tiny_roberta_mlm(const TempDir& dir) {
  const fs::path config = write_tiny_roberta_config(dir);
  return tiny_model(dir, "roberta", fmt::format("--task_name mlm --config_name {} --tokenizer_name "
                                                "tests/fixtures/tokenizers/roberta_bpe --train_file {}",
                                                config.string(), demo_text(dir).string()));
}

// tests/fixtures/hub/<fixture>/<config>'s train, validation and test splits as the cache's
// datasets--<repo> holds them.
void put_dataset(const fs::path& cache, const std::string& repo, const std::string& fixture, const std::string& config) {
  std::map<std::string, fs::path> splits;
  for (const char* split : {"train", "validation", "test"}) {
    const std::string file = fmt::format("{}-00000-of-00001.parquet", split);
    splits[config + "/" + file] = fixtures_dir() / "hub" / fixture / config / file;
  }
  put_in_cache(cache, "datasets--" + repo, splits);
}

TEST(MlmSwagCli, RunMlmsReadmeCommandTrainsOnWikitextFromTheCache) {
  const TempDir dir;
  const fs::path cache = dir / "hub";
  put_in_cache(cache, "models--FacebookAI--roberta-base", folder_files(tiny_roberta_mlm(dir)));
  put_dataset(cache, "Salesforce--wikitext", "wikitext", "wikitext-2-raw-v1");

  const fs::path out = dir / "test-mlm";
  const CliRun run = with_cache(
      cache, "run_mlm --model_name_or_path FacebookAI/roberta-base --dataset_name wikitext --dataset_config_name "
             "wikitext-2-raw-v1 --per_device_train_batch_size 8 --do_train --do_eval --output_dir " + out.string());
  ASSERT_EQ(run.exit_code, 0) << run.output();
  EXPECT_NE(run.out.find("model: RobertaForMaskedLM"), std::string::npos) << run.out;
  // max_seq_length unset: the model's 128 positions (at most 1,024), as run_mlm takes
  // model_max_length; the pre-training head comes from the checkpoint, nothing is initialised.
  EXPECT_NE(run.out.find("data: mlm | train "), std::string::npos) << run.out;
  EXPECT_EQ(run.output().find("initialised"), std::string::npos) << run.output();
  const nlohmann::json eval = read_json(out / "eval_results.json");
  ASSERT_TRUE(eval.contains("eval_loss") && eval.contains("perplexity") && eval.contains("eval_accuracy")) << eval.dump();
  EXPECT_NEAR(eval["perplexity"].get<double>(), std::exp(eval["eval_loss"].get<double>()),
              1e-9 * eval["perplexity"].get<double>());
  EXPECT_TRUE(read_json(out / "all_results.json").contains("perplexity"));
  EXPECT_EQ(read_json(out / "config.json")["architectures"][0], "RobertaForMaskedLM");
  // Saved as save_pretrained ties: the decoder is the word embeddings, stored once.
  const io::SafetensorsReader weights(out / "model.safetensors");
  EXPECT_NE(weights.find("lm_head.bias"), nullptr);
  EXPECT_NE(weights.find("lm_head.dense.weight"), nullptr);
  EXPECT_EQ(weights.find("lm_head.decoder.weight"), nullptr);
  EXPECT_NE(weights.find("roberta.embeddings.word_embeddings.weight"), nullptr);
}

TEST(MlmSwagCli, RunSwagsReadmeCommandTrainsOnSwagFromTheCache) {
  const TempDir dir;
  const fs::path cache = dir / "hub";
  put_in_cache(cache, "models--FacebookAI--roberta-base", folder_files(tiny_roberta_mlm(dir)));
  put_dataset(cache, "allenai--swag", "swag", "regular");

  const fs::path out = dir / "swag_base";
  const CliRun run = with_cache(
      cache, "run_swag --model_name_or_path FacebookAI/roberta-base --do_train --do_eval --learning_rate 5e-5 "
             "--num_train_epochs 3 --output_dir " + out.string() +
             " --per_device_eval_batch_size=16 --per_device_train_batch_size=16 --overwrite_output");
  ASSERT_EQ(run.exit_code, 0) << run.output();
  EXPECT_NE(run.out.find("data: swag | train 96 examples | eval 32 examples | 4 choices"), std::string::npos)
      << run.out;
  const nlohmann::json eval = read_json(out / "eval_results.json");
  ASSERT_TRUE(eval.contains("eval_accuracy") && eval.contains("eval_loss")) << eval.dump();
  EXPECT_EQ(read_json(out / "config.json")["architectures"][0], "RobertaForMultipleChoice");
  // The Hub's roberta-base has no pooler: RobertaForMultipleChoice initialises it.
  EXPECT_NE(run.output().find("newly initialised: roberta.pooler.dense.weight"), std::string::npos) << run.output();
  const io::SafetensorsReader weights(out / "model.safetensors");
  EXPECT_NE(weights.find("roberta.pooler.dense.weight"), nullptr);
  EXPECT_NE(weights.find("classifier.weight"), nullptr);
}

// Masks are a function of (seed, row, epoch) and the loss a mean over the global batch's masked
// tokens: 2 workers train the masked-LM model of 1, whole-word masking included; multiple choice
// keeps an example's 4 choices together on either.
TEST(MlmSwagCli, BothTasksTrainAlikeOnOneAndTwoWorkers) {
  const TempDir dir;
  const fs::path text = demo_text(dir);
  write_file(dir / "swag.csv",
             "sent1,sent2,ending0,ending1,ending2,ending3,label\n"
             "the cat sat,on,the mat,a hat,the moon,nothing,0\n"
             "bikes were sold,in,Vienna on Sunday,Lisbon,a bank,the sea,1\n"
             "prices rose,by,five percent,a mile,the dog,red,0\n"
             "he said,that,it rained,no,yes,maybe,2\n"
             "the market,closed,higher,lower,flat,open,1\n"
             "she went,to,the shop,a park,home,school,3\n"
             "they built,a,house,car,ship,road,0\n"
             "we ate,some,bread,stone,air,music,0\n");
  const std::string swag = (dir / "swag.csv").string();
  const std::vector<ScriptTask> tasks = {
      {"mlm",
       fmt::format("--task_name mlm --train_file {} --validation_file {} --do_eval --whole_word_mask --max_train_samples 48",
                   text.string(), text.string()),
       "RobertaForMaskedLM", "eval_results.json"},
      {"swag", fmt::format("--task_name swag --train_file {} --validation_file {} --do_eval", swag, swag),
       "RobertaForMultipleChoice", "eval_results.json"}};
  expect_tasks_train_alike(dir, write_tiny_roberta_config(dir, true),
                           (fixtures_dir() / "tokenizers" / "roberta_bpe").string(), tasks);
}

}  // namespace
}  // namespace mlm_swag_cli_test
}  // namespace shmtrain::testing
