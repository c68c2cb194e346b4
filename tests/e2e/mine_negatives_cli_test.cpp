// `shmtrain mine-negatives` through the built binary on tests/fixtures/mine_negatives
// (tools/make_mine_negatives_reference.py): over the same unit-length embeddings (the cache
// folder the script took from a run) every output format and filter gives the rows a NumPy
// brute force mines, duplicates removed and tied scores in corpus order; embedding again gives
// the same rows; random sampling draws from what the filters leave; bad input is an error
// naming the file, column or flag, with no output file left.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace shmtrain::testing {
namespace mine_negatives_cli_test {

namespace fs = std::filesystem;

fs::path fixture() { return fixtures_dir() / "mine_negatives"; }

nlohmann::json reference() { return nlohmann::json::parse(read_file(fixture() / "reference.json")); }

std::string command(const fs::path& output, const std::string& extra) {
  return "mine-negatives --model_name_or_path " + (fixtures_dir() / "sentence_embedding" / "bert_tiny").string() +
         " --dataset " + (fixture() / "dataset.jsonl").string() + " --corpus " + (fixture() / "corpus.txt").string() +
         " --output " + output.string() + " " + extra;
}

std::vector<nlohmann::json> rows_of(const fs::path& path) {
  std::vector<nlohmann::json> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

// The rows equal, texts exactly, scores (n-tuple-scores) within 1e-6.
void expect_rows(const std::vector<nlohmann::json>& got, const nlohmann::json& expected) {
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    nlohmann::json a = got[i], b = expected[i];
    if (b.contains("score")) {
      ASSERT_EQ(a["score"].size(), b["score"].size()) << "row " << i;
      for (std::size_t j = 0; j < b["score"].size(); ++j) {
        EXPECT_NEAR(a["score"][j].get<double>(), b["score"][j].get<double>(), 1e-6) << "row " << i;
      }
      a.erase("score");
      b.erase("score");
    }
    EXPECT_EQ(a, b) << "row " << i;
  }
}

std::string joined(const nlohmann::json& flags) {
  std::string out;
  for (const auto& f : flags) {
    out += ' ';
    out += f.get<std::string>();
  }
  return out;
}

TEST(MineNegatives, EqualsANumPyBruteForceOverTheSameEmbeddings) {
  const TempDir dir;
  fs::copy(fixture() / "cache", dir / "cache");
  const nlohmann::json cases = reference()["cases"];
  ASSERT_EQ(cases.size(), 7u);
  for (const auto& [name, c] : cases.items()) {
    SCOPED_TRACE(name);
    const fs::path out = dir / (name + ".jsonl");
    const CliRun run = run_shmtrain(command(out, "--cache_folder " + (dir / "cache").string() + joined(c["flags"])));
    ASSERT_EQ(run.exit_code, 0) << run.output();
    // The embeddings came from the cache, not from a new run of the model.
    EXPECT_NE(run.out.find("corpus embeddings read from"), std::string::npos) << run.output();
    EXPECT_NE(run.out.find("query embeddings read from"), std::string::npos) << run.output();
    expect_rows(rows_of(out), c["rows"]);
  }
}

// The model's own embeddings (no cache) mine the same rows: the cached files are what the
// encode path computes.
TEST(MineNegatives, EmbeddingAgainMinesTheSameRows) {
  const TempDir dir;
  const nlohmann::json cases = reference()["cases"];
  for (const char* name : {"triplet_top", "labeled_list_range"}) {
    const fs::path out = dir / (std::string(name) + ".jsonl");
    const CliRun run = run_shmtrain(command(out, joined(cases[name]["flags"])));
    ASSERT_EQ(run.exit_code, 0) << run.output();
    expect_rows(rows_of(out), cases[name]["rows"]);
  }
}

// --sampling_strategy random: each query's negatives are distinct, drawn from the top range_max
// left after its positives go (the first 20 of the wide run's list), kept best first; the seed
// decides the draw.
TEST(MineNegatives, RandomSamplingDrawsFromWhatTheFiltersLeave) {
  const TempDir dir;
  fs::copy(fixture() / "cache", dir / "cache");
  std::map<std::string, std::vector<std::string>> ranked;  // query -> negatives, best first
  const nlohmann::json wide = reference()["cases"]["triplet_wide"]["rows"];
  for (const auto& row : wide) {
    auto& list = ranked[row["query"].get<std::string>()];
    const std::string negative = row["negative"].get<std::string>();
    if (std::find(list.begin(), list.end(), negative) == list.end()) list.push_back(negative);
  }
  std::vector<std::vector<nlohmann::json>> runs;
  for (const char* seed : {"7", "7", "8"}) {
    const fs::path out = dir / ("random" + std::to_string(runs.size()) + ".jsonl");
    const CliRun run = run_shmtrain(command(out, "--cache_folder " + (dir / "cache").string() +
                                                     " --sampling_strategy random --range_max 20 --num_negatives 4 "
                                                     "--output_format n-tuple --seed " + seed));
    ASSERT_EQ(run.exit_code, 0) << run.output();
    runs.push_back(rows_of(out));
  }
  ASSERT_FALSE(runs[0].empty());
  for (const auto& row : runs[0]) {
    const auto& list = ranked[row["query"].get<std::string>()];
    std::vector<std::size_t> places;
    for (int i = 1; i <= 4; ++i) {
      const auto at = std::find(list.begin(), list.begin() + std::min<std::size_t>(20, list.size()),
                                row["negative_" + std::to_string(i)].get<std::string>());
      ASSERT_NE(at, list.begin() + std::min<std::size_t>(20, list.size())) << row.dump();
      places.push_back(static_cast<std::size_t>(at - list.begin()));
    }
    EXPECT_TRUE(std::is_sorted(places.begin(), places.end())) << row.dump();
    EXPECT_EQ(std::set<std::size_t>(places.begin(), places.end()).size(), 4u) << row.dump();
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_NE(runs[0], runs[2]);
}

TEST(MineNegatives, BadInputNamesTheProblemAndWritesNothing) {
  const TempDir dir;
  const fs::path out = dir / "out.jsonl";
  auto fails = [&](const std::string& arguments, const std::string& message) {
    const CliRun run = run_shmtrain(arguments);
    EXPECT_NE(run.exit_code, 0) << arguments;
    fs::remove(out);
    EXPECT_NE(run.err.find(message), std::string::npos) << run.output();
    EXPECT_FALSE(fs::exists(out));
  };
  fails(command(out, "--anchor_column_name question"), "no column 'question' (--anchor_column_name)");
  fails(command(out, "--output_format quadruplet"), "--output_format 'quadruplet': triplet, n-tuple");
  fails(command(out, "--sampling_strategy best"), "--sampling_strategy 'best': top or random");
  fails(command(out, "--num_negatives 0"), "--num_negatives must be at least 1");
  write_file(dir / "one_column.jsonl", "{\"query\": \"bal\"}\n");
  fails("mine-negatives --model_name_or_path " + (fixtures_dir() / "sentence_embedding" / "bert_tiny").string() +
            " --dataset " + (dir / "one_column.jsonl").string() + " --output " + out.string(),
        "mine-negatives needs (anchor, positive) columns");
  // A cache file whose shape is not the texts': named, never used.
  fs::copy(fixture() / "cache", dir / "cache");
  for (const auto& entry : fs::directory_iterator(dir / "cache")) {
    if (entry.path().filename().string().starts_with("corpus_")) fs::resize_file(entry.path(), 200);
  }
  fails(command(out, "--cache_folder " + (dir / "cache").string()), "corpus_embeddings_");
}

}  // namespace mine_negatives_cli_test
}  // namespace shmtrain::testing
