// Sentence embeddings from the local Hugging Face cache, as a sentence-transformers user names
// them: sentence-transformers/all-nli (config triplet) trains on its train split and evaluates on
// its `dev` split (it has no `validation`), and a NanoBEIR-style dataset (configs corpus, queries,
// qrels) is the retrieval evaluation, its queries prefixed by --ir_query_prompt; the figures are
// NanoBEIREvaluator's over the saved model's own embeddings (an empty document dropped yet still
// relevant, a query without judgements not scored). Fixtures: tests/fixtures/hub/all-nli and
// nano_paraphrase (tools/hub_fixture/generate.mjs).
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "hub_cache_fixture.hpp"
#include "npy_values.hpp"
#include "shmtrain/task/sentence_embedding/ir_metrics.hpp"
#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace sentence_hub_test {

namespace fs = std::filesystem;
using namespace hub_cache;

void put_configs(const fs::path& cache, const std::string& repo, const std::string& fixture,
                 const std::map<std::string, std::vector<std::string>>& splits) {
  std::map<std::string, fs::path> files;
  for (const auto& [config, names] : splits) {
    for (const std::string& split : names) {
      const std::string file = config + "/" + split + "-00000-of-00001.parquet";
      files[file] = fixtures_dir() / "hub" / fixture / file;
    }
  }
  put_in_cache(cache, "datasets--" + repo, files);
}

TEST(SentenceHub, AllNliTrainsAndEvaluatesOnItsDevSplitAndANanoBeirSet) {
  const TempDir dir;
  const fs::path cache = dir / "hub";
  put_configs(cache, "sentence-transformers--all-nli", "all-nli", {{"triplet", {"train", "dev", "test"}}});
  put_configs(cache, "fixtures--NanoParaphrase", "nano_paraphrase",
              {{"corpus", {"train"}}, {"queries", {"train"}}, {"qrels", {"train"}}});
  const fs::path out = dir / "out";
  const CliRun run = with_cache(
      cache, "train --task_name sentence-embedding --dataset_name sentence-transformers/all-nli "
             "--dataset_config_name triplet --config_name demo/paraphrase/config.json --tokenizer_name demo/paraphrase "
             "--do_train --do_eval --max_steps 4 --per_device_train_batch_size 8 --learning_rate 1e-3 "
             "--ir_eval_dir fixtures/NanoParaphrase --ir_query_prompt 'query: ' --save_steps 0 --disable_tqdm "
             "--output_dir " + out.string());
  ASSERT_EQ(run.exit_code, 0) << run.output();
  const auto results = read_json(out / "eval_results.json");
  // The dev split's triplets as TripletEvaluator, named <repo>-<split>.
  ASSERT_TRUE(results.contains("eval_all-nli-dev_cosine_accuracy")) << results.dump();
  const std::vector<std::string> names = {"accuracy@1", "accuracy@3", "accuracy@5", "accuracy@10", "precision@1",
                                          "precision@3", "precision@5", "precision@10", "recall@1", "recall@3",
                                          "recall@5", "recall@10", "ndcg@10", "mrr@10", "map@100"};
  for (const std::string& name : names) {
    ASSERT_TRUE(results.contains("eval_NanoParaphrase_cosine_" + name)) << results.dump();
  }

  // The same figures from the saved model: queries q0..q39 with the prompt, the corpus without
  // d5 (its text is empty), q9 unjudged; q5's relevant documents are d5 (never retrieved) and d6.
  std::vector<std::string> queries, documents, ids;
  const fs::path hub = fixtures_dir() / "hub" / "nano_paraphrase";
  const CliRun dump_q = run_shmtrain("encode --model_name_or_path " + out.string() + " --input " +
                                     (hub / "queries" / "train-00000-of-00001.parquet").string() +
                                     " --text_column text --prompt 'query: ' --output " + (dir / "q.npy").string());
  ASSERT_EQ(dump_q.exit_code, 0) << dump_q.output();
  const CliRun dump_c = run_shmtrain("encode --model_name_or_path " + out.string() + " --input " +
                                     (hub / "corpus" / "train-00000-of-00001.parquet").string() +
                                     " --text_column text --output " + (dir / "c.npy").string());
  ASSERT_EQ(dump_c.exit_code, 0) << dump_c.output();
  const std::vector<float> q = npy_values(dir / "q.npy");
  const std::vector<float> c = npy_values(dir / "c.npy");
  const std::size_t h = 128, nq = q.size() / h, nc = c.size() / h;
  ASSERT_EQ(nq, 40u);
  ASSERT_EQ(nc, 48u);  // d5 embedded from its empty text; left out below
  std::vector<std::size_t> kept;
  for (std::size_t d = 0; d < nc; ++d) {
    if (d == 5) continue;
    kept.push_back(d);
    ids.push_back("d" + std::to_string(d));
  }
  std::vector<std::vector<task::sentence_embedding::Hit>> hits;
  std::vector<std::set<std::int64_t>> relevant;
  auto index_of = [&](std::size_t d) { return static_cast<std::int64_t>(d < 5 ? d : d - 1); };
  for (std::size_t i = 0; i < nq; ++i) {
    if (i == 9) continue;
    std::set<std::int64_t> rel = {i == 5 ? -1 : index_of(i)};
    if (i % 3 == 2 || i == 5) rel.insert(index_of(i + 1));
    relevant.push_back(rel);
    std::vector<float> scores;
    for (const std::size_t d : kept) {
      double dot = 0, qq = 0, cc = 0;
      for (std::size_t k = 0; k < h; ++k) {
        dot += double(q[i * h + k]) * c[d * h + k];
        qq += double(q[i * h + k]) * q[i * h + k];
        cc += double(c[d * h + k]) * c[d * h + k];
      }
      scores.push_back(static_cast<float>(dot / std::sqrt(qq * cc)));
    }
    hits.push_back(task::sentence_embedding::ranked_hits(scores.data(), ids, 100));
  }
  const auto expected = task::sentence_embedding::ir_metrics(hits, relevant);
  for (const std::string& name : names) {
    EXPECT_NEAR(results["eval_NanoParaphrase_cosine_" + name].get<double>(), expected.at(name), 1e-6) << name;
  }

  // A dataset id the cache lacks names what was looked for.
  const CliRun missing = with_cache(
      cache, "train --task_name sentence-embedding --dataset_name sentence-transformers/all-nli "
             "--dataset_config_name triplet --config_name demo/paraphrase/config.json --tokenizer_name demo/paraphrase "
             "--do_train --do_eval --max_steps 1 --ir_eval_dir fixtures/NanoMissing --output_dir " +
             (dir / "missing").string());
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("--ir_eval_dir fixtures/NanoMissing: no such folder here, and no NanoBEIR-style dataset"),
            std::string::npos)
      << missing.output();
}

}  // namespace sentence_hub_test
}  // namespace shmtrain::testing
