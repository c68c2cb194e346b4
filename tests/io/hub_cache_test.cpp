#include "shmtrain/io/hub_cache.hpp"

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "shmtrain/common/error.hpp"
#include "support/test_support.hpp"

namespace shmtrain::io {
namespace {

namespace fs = std::filesystem;
using shmtrain::testing::error_of;
using shmtrain::testing::read_file;
using shmtrain::testing::TempDir;
using shmtrain::testing::write_file;

// On failure prints the whole text: the messages are what these tests are about.
::testing::AssertionResult contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\n  \"" << part << "\"\nis not in\n  \"" << text << "\"";
}

constexpr const char* kMain = "0123456789abcdef0123456789abcdef01234567";
constexpr const char* kTag = "fedcba9876543210fedcba9876543210fedcba98";
constexpr const char* kPr = "5555555555555555555555555555555555555555";

// One environment variable set (or unset) for the scope, then restored.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(value);
  }
  ~ScopedVariable() { set(old_); }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  void set(const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name_, value->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  const char* name_;
  std::optional<std::string> old_;
};

// No cache variable set, HOME at `home`: each test adds the one it checks.
struct CleanEnvironment {
  explicit CleanEnvironment(const fs::path& home) : home_variable("HOME", home.string()) {}
  ScopedVariable hf_hub_cache{"HF_HUB_CACHE", std::nullopt};
  ScopedVariable huggingface_hub_cache{"HUGGINGFACE_HUB_CACHE", std::nullopt};
  ScopedVariable hf_home{"HF_HOME", std::nullopt};
  ScopedVariable xdg_cache_home{"XDG_CACHE_HOME", std::nullopt};
  ScopedVariable transformers_cache{"TRANSFORMERS_CACHE", std::nullopt};
  ScopedVariable home_variable;
};

// A cache laid out as huggingface_hub lays it out: contents in blobs/, snapshot files as
// relative links into blobs/, refs/<name> holding a commit hash.
class FakeHub {
 public:
  explicit FakeHub(fs::path cache) : cache_(std::move(cache)) {}
  const fs::path& cache() const { return cache_; }

  fs::path repo(HubRepoType type, const std::string& id) const {
    std::string name = id;
    for (std::size_t at = name.find('/'); at != std::string::npos; at = name.find('/'))
      name.replace(at, 1, "--");
    return cache_ / ((type == HubRepoType::model ? "models--" : "datasets--") + name);
  }
  // snapshots/<commit>/<file> -> ../../blobs/<sha>; returns the link.
  fs::path add(HubRepoType type, const std::string& id, const std::string& commit, const std::string& file,
               const std::string& contents) {
    const fs::path blob = repo(type, id) / "blobs" / fmt::format("{:064x}", ++blobs_);
    write_file(blob, contents);
    const fs::path link = repo(type, id) / "snapshots" / commit / file;
    fs::create_directories(link.parent_path());
    fs::create_symlink(blob.lexically_relative(link.parent_path()), link);
    return link;
  }
  void ref(HubRepoType type, const std::string& id, const std::string& name, const std::string& commit) {
    write_file(repo(type, id) / "refs" / name, commit);
  }
  fs::path model(const std::string& id, const std::string& commit = kMain) {
    add(HubRepoType::model, id, commit, "config.json", "{\"model_type\": \"bert\"}");
    ref(HubRepoType::model, id, "main", kMain);
    return repo(HubRepoType::model, id) / "snapshots" / commit;
  }
  void dataset_file(const std::string& id, const std::string& file, const std::string& commit = kMain) {
    add(HubRepoType::dataset, id, commit, file, "PAR1");
    ref(HubRepoType::dataset, id, commit == kMain ? "main" : "refs/convert/parquet", commit);
  }

 private:
  fs::path cache_;
  int blobs_ = 0;
};

struct HubTest : ::testing::Test {
  TempDir dir;
  FakeHub hub{dir / "cache"};
  HubLookup lookup{dir / "cache", "main"};
  HubLookup at(const std::string& revision) const { return {lookup.cache_dir, revision}; }
};

// ---- the cache folder ----

TEST(HubCacheDir, FollowsHuggingfaceHubsOrderOfVariables) {
  TempDir dir;
  CleanEnvironment env(dir / "home");
  EXPECT_EQ(hub_cache_dir(std::nullopt).path, dir / "home/.cache/huggingface/hub");
  ScopedVariable xdg("XDG_CACHE_HOME", (dir / "xdg").string());
  EXPECT_EQ(hub_cache_dir(std::nullopt).path, dir / "xdg/huggingface/hub");
  ScopedVariable hf_home("HF_HOME", (dir / "hf").string());
  EXPECT_EQ(hub_cache_dir(std::nullopt).path, dir / "hf/hub");
  EXPECT_EQ(hub_cache_dir(std::nullopt).origin, "$HF_HOME/hub");
  ScopedVariable legacy("HUGGINGFACE_HUB_CACHE", (dir / "legacy").string());
  EXPECT_EQ(hub_cache_dir(std::nullopt).path, dir / "legacy");
  ScopedVariable hub_cache("HF_HUB_CACHE", (dir / "hub").string());
  EXPECT_EQ(hub_cache_dir(std::nullopt).path, dir / "hub");
  EXPECT_EQ(hub_cache_dir(std::nullopt).origin, "$HF_HUB_CACHE");
  const HubCacheDir chosen = hub_cache_dir(dir / "flag");
  EXPECT_EQ(chosen.path, dir / "flag");
  EXPECT_EQ(chosen.origin, "--cache_dir");
}

TEST(HubCacheDir, ExpandsTildeAndTakesEmptyVariablesAsUnset) {
  TempDir dir;
  CleanEnvironment env(dir / "home");
  ScopedVariable empty("HF_HUB_CACHE", "");
  ScopedVariable hf_home("HF_HOME", "~/hf");
  EXPECT_EQ(hub_cache_dir(std::nullopt).path, dir / "home/hf/hub");
  EXPECT_EQ(hub_cache_dir(fs::path("~/flag")).path, dir / "home/flag");
}

TEST(HubCacheDir, NamesTransformersCacheWhereItDiffers) {
  TempDir dir;
  CleanEnvironment env(dir / "home");
  EXPECT_FALSE(hub_cache_dir(std::nullopt).transformers_cache);
  ScopedVariable transformers("TRANSFORMERS_CACHE", (dir / "tc").string());
  EXPECT_EQ(hub_cache_dir(std::nullopt).transformers_cache, dir / "tc");
  const std::string message =
      error_of([&] { resolve_hub_snapshot("bert-base-uncased", HubRepoType::model, {}); });
  EXPECT_TRUE(contains(message, fmt::format("pass --cache_dir {}", (dir / "tc").string())));
}

// ---- ids ----

TEST(HubRepoId, AcceptsHubIdsOnly) {
  for (const char* id : {"bert-base-uncased", "google-bert/bert-base-cased", "a.b_c/d-e.f", "x"}) {
    EXPECT_TRUE(is_hub_repo_id(id)) << id;
  }
  for (const char* id :
       {"", "a/b/c", "a--b", "a/../b", "-a", "a/b-", ".a", "/abs", "./rel", "a b", "x.git"}) {
    EXPECT_FALSE(is_hub_repo_id(id)) << id;
  }
}

TEST(HubRepoId, CandidatesCoverTheHubsRenames) {
  using V = std::vector<std::string>;
  EXPECT_EQ(hub_repo_candidates("bert-base-uncased", HubRepoType::model),
            (V{"bert-base-uncased", "google-bert/bert-base-uncased"}));
  EXPECT_EQ(hub_repo_candidates("google-bert/bert-base-cased", HubRepoType::model),
            (V{"google-bert/bert-base-cased", "bert-base-cased"}));
  EXPECT_EQ(hub_repo_candidates("roberta-base", HubRepoType::model),
            (V{"roberta-base", "FacebookAI/roberta-base"}));
  EXPECT_EQ(hub_repo_candidates("xlm-roberta-base", HubRepoType::model),
            (V{"xlm-roberta-base", "FacebookAI/xlm-roberta-base"}));
  EXPECT_EQ(hub_repo_candidates("distilbert-base-uncased", HubRepoType::model),
            (V{"distilbert-base-uncased", "distilbert/distilbert-base-uncased"}));
  EXPECT_EQ(hub_repo_candidates("someone/bert-tiny", HubRepoType::model), (V{"someone/bert-tiny"}));
  EXPECT_EQ(hub_repo_candidates("squad", HubRepoType::dataset), (V{"squad", "rajpurkar/squad"}));
  EXPECT_EQ(hub_repo_candidates("nyu-mll/glue", HubRepoType::dataset), (V{"nyu-mll/glue", "glue"}));
  EXPECT_EQ(hub_repo_candidates("squad", HubRepoType::model), (V{"squad"}));
}

// ---- snapshots ----

TEST_F(HubTest, IdWithoutOrgIsModelsDashDashName) {
  const fs::path folder = hub.model("bert-base-uncased");
  const HubSnapshot snapshot = resolve_hub_snapshot("bert-base-uncased", HubRepoType::model, lookup);
  EXPECT_EQ(snapshot.folder, dir / "cache/models--bert-base-uncased/snapshots" / kMain);
  EXPECT_EQ(snapshot.folder, folder);
  EXPECT_EQ(snapshot.commit, kMain);
  EXPECT_EQ(snapshot.repo_id, "bert-base-uncased");
  const fs::path config = hub_snapshot_file(snapshot, "config.json");
  EXPECT_EQ(config, folder / "config.json");
  EXPECT_EQ(read_file(config), "{\"model_type\": \"bert\"}");
}

TEST_F(HubTest, IdWithOrgAndTheHubsOtherNameForIt) {
  hub.model("google-bert/bert-base-cased");
  hub.model("google-bert/bert-base-uncased");
  const HubSnapshot cased = resolve_hub_snapshot("google-bert/bert-base-cased", HubRepoType::model, lookup);
  EXPECT_EQ(cased.folder, dir / "cache/models--google-bert--bert-base-cased/snapshots" / kMain);
  const HubSnapshot legacy = resolve_hub_snapshot("bert-base-uncased", HubRepoType::model, lookup);
  EXPECT_EQ(legacy.repo_id, "google-bert/bert-base-uncased");
}

TEST_F(HubTest, RevisionsAreBranchesTagsPullRequestsAndCommits) {
  hub.model("org/m");
  hub.add(HubRepoType::model, "org/m", kTag, "config.json", "tag");
  hub.add(HubRepoType::model, "org/m", kPr, "config.json", "pr");
  hub.ref(HubRepoType::model, "org/m", "v1.0", kTag);
  hub.ref(HubRepoType::model, "org/m", "refs/pr/3", kPr);
  EXPECT_TRUE(fs::is_regular_file(hub.repo(HubRepoType::model, "org/m") / "refs/refs/pr/3"));
  EXPECT_EQ(resolve_hub_snapshot("org/m", HubRepoType::model, at("v1.0")).commit, kTag);
  EXPECT_EQ(resolve_hub_snapshot("org/m", HubRepoType::model, at("refs/pr/3")).commit, kPr);
  EXPECT_EQ(resolve_hub_snapshot("org/m", HubRepoType::model, at(kTag)).commit, kTag);
  EXPECT_EQ(resolve_hub_snapshot("org/m", HubRepoType::model, at("fedcba9")).commit, kTag);  // a short hash
  const HubSnapshot pr = resolve_hub_snapshot("org/m", HubRepoType::model, at("refs/pr/3"));
  EXPECT_EQ(read_file(hub_snapshot_file(pr, "config.json")), "pr");
}

TEST_F(HubTest, UnknownRevisionListsWhatIsCached) {
  hub.model("org/m");
  const std::string message = error_of([&] { resolve_hub_snapshot("org/m", HubRepoType::model, at("v2")); });
  EXPECT_TRUE(contains(message, "not at revision v2"));
  EXPECT_TRUE(contains(message, "cached refs: main -> 0123456789ab"));
  EXPECT_TRUE(contains(message, fmt::format("snapshots: {}", kMain)));
  EXPECT_TRUE(contains(message, fmt::format("`huggingface-cli download org/m --revision v2 --cache-dir {}`",
                                            (dir / "cache").string())));
  EXPECT_EQ(find_hub_snapshot("org/m", HubRepoType::model, at("v2")), std::nullopt);
  EXPECT_TRUE(contains(error_of([&] { resolve_hub_snapshot("org/m", HubRepoType::model, at("../x")); }),
                       "is not a branch, tag or commit"));
}

TEST_F(HubTest, RefNamingAMissingSnapshotSaysSo) {
  hub.model("org/m");
  hub.ref(HubRepoType::model, "org/m", "main", kTag);
  EXPECT_TRUE(contains(error_of([&] { resolve_hub_snapshot("org/m", HubRepoType::model, lookup); }),
                       fmt::format("names commit {}, but", kTag)));
}

TEST_F(HubTest, MissingRepoNamesEveryFolderTriedAndTheDownloadCommand) {
  const std::string message =
      error_of([&] { resolve_hub_snapshot("bert-base-uncased", HubRepoType::model, lookup); });
  EXPECT_TRUE(contains(message, "model bert-base-uncased is not in the Hugging Face cache"));
  EXPECT_TRUE(contains(message, (dir / "cache/models--bert-base-uncased").string()));
  EXPECT_TRUE(contains(message, (dir / "cache/models--google-bert--bert-base-uncased").string()));
  EXPECT_TRUE(contains(message, "(--cache_dir)"));
  EXPECT_TRUE(contains(message, fmt::format("`huggingface-cli download bert-base-uncased --cache-dir {}`",
                                            (dir / "cache").string())));
  EXPECT_TRUE(contains(error_of([&] { resolve_hub_snapshot("a/b/c", HubRepoType::model, lookup); }),
                       "not a Hugging Face model id"));
}

TEST_F(HubTest, EnvironmentChoosesTheCacheWithoutCacheDir) {
  CleanEnvironment env(dir / "home");
  ScopedVariable hub_cache("HF_HUB_CACHE", (dir / "cache").string());
  hub.model("org/m");
  EXPECT_EQ(resolve_hub_snapshot("org/m", HubRepoType::model, {}).commit, kMain);
  const std::string message = error_of([&] { resolve_hub_snapshot("org/x", HubRepoType::dataset, {}); });
  EXPECT_TRUE(contains(message, "($HF_HUB_CACHE)"));
  EXPECT_TRUE(contains(message, (dir / "cache/datasets--org--x").string()));
  EXPECT_TRUE(contains(message, "`huggingface-cli download org/x --repo-type dataset`"));
}

TEST_F(HubTest, BrokenLinkIsAnInterruptedDownload) {
  hub.model("org/m");
  const fs::path weights = hub.add(HubRepoType::model, "org/m", kMain, "model.safetensors", "weights");
  fs::remove(fs::read_symlink(weights).is_absolute() ? fs::read_symlink(weights)
                                                     : weights.parent_path() / fs::read_symlink(weights));
  const std::string message = error_of([&] { resolve_hub_snapshot("org/m", HubRepoType::model, lookup); });
  EXPECT_TRUE(contains(message, weights.string()));
  EXPECT_TRUE(contains(message, "a broken link into blobs/ (an interrupted download?)"));
  EXPECT_TRUE(contains(message, "`huggingface-cli download org/m"));
}

TEST_F(HubTest, MissingFileNamesTheSnapshotOrTheRecordedAbsence) {
  hub.model("org/m");
  const HubSnapshot snapshot = resolve_hub_snapshot("org/m", HubRepoType::model, lookup);
  EXPECT_EQ(find_hub_snapshot_file(snapshot, "vocab.txt"), std::nullopt);
  const std::string message = error_of([&] { hub_snapshot_file(snapshot, "vocab.txt"); });
  EXPECT_TRUE(
      contains(message, fmt::format("vocab.txt is not in the cached snapshot {}", snapshot.folder.string())));
  EXPECT_TRUE(contains(message, "`huggingface-cli download org/m"));
  write_file(hub.repo(HubRepoType::model, "org/m") / ".no_exist" / kMain / "tokenizer.json", "");
  EXPECT_TRUE(contains(error_of([&] { hub_snapshot_file(snapshot, "tokenizer.json"); }),
                       fmt::format("model org/m has no tokenizer.json at commit {}", kMain)));
  EXPECT_TRUE(contains(error_of([&] { hub_snapshot_file(snapshot, "../../refs/main"); }), "not a file name"));
}

// ---- datasets ----

TEST(HubDatasetName, ExampleNamesMapToWhereTheyLiveNow) {
  const auto name = [](std::string_view id, std::string_view config) {
    const DatasetName canonical = canonical_dataset(id, config);
    return canonical.repo_id + ":" + canonical.config;
  };
  EXPECT_EQ(name("squad", ""), "rajpurkar/squad:plain_text");
  EXPECT_EQ(name("squad_v2", ""), "rajpurkar/squad_v2:squad_v2");
  EXPECT_EQ(name("glue", "mrpc"), "nyu-mll/glue:mrpc");
  EXPECT_EQ(name("nyu-mll/glue", "mnli"), "nyu-mll/glue:mnli");
  EXPECT_EQ(name("conll2003", ""), "eriktks/conll2003:conll2003");
  EXPECT_EQ(name("someone/data", ""), "someone/data:");
  EXPECT_EQ(name("squad", "other"), "rajpurkar/squad:other");
  EXPECT_TRUE(contains(error_of([&] { canonical_dataset("glue", ""); }), "needs a config, the GLUE task"));
  EXPECT_TRUE(contains(error_of([&] { canonical_dataset("glue", "mrcp"); }), "no config 'mrcp'"));
  EXPECT_TRUE(contains(error_of([&] { canonical_dataset("../data", ""); }), "not a Hugging Face dataset id"));
}

TEST_F(HubTest, ShardsComeInShardOrder) {
  hub.dataset_file("rajpurkar/squad", "plain_text/train-00002-of-00003.parquet");
  hub.dataset_file("rajpurkar/squad", "plain_text/train-00000-of-00003-0123456789abcdef.parquet");
  hub.dataset_file("rajpurkar/squad", "plain_text/train-00001-of-00003.parquet");
  hub.dataset_file("rajpurkar/squad", "plain_text/validation-00000-of-00001.parquet");
  const fs::path snapshot = hub.repo(HubRepoType::dataset, "rajpurkar/squad") / "snapshots" / kMain;
  EXPECT_EQ(resolve_dataset_split(canonical_dataset("squad", ""), "train", lookup),
            (std::vector<fs::path>{snapshot / "plain_text/train-00000-of-00003-0123456789abcdef.parquet",
                                   snapshot / "plain_text/train-00001-of-00003.parquet",
                                   snapshot / "plain_text/train-00002-of-00003.parquet"}));
  EXPECT_EQ(dataset_splits(canonical_dataset("squad", ""), lookup),
            (std::vector<std::string>{"train", "validation"}));
}

TEST_F(HubTest, MissingMixedOrDoubledShardsAreNamed) {
  const DatasetName name{"org/d", ""};
  hub.dataset_file("org/d", "data/train-00000-of-00003.parquet");
  hub.dataset_file("org/d", "data/train-00002-of-00003.parquet");
  EXPECT_TRUE(contains(error_of([&] { resolve_dataset_split(name, "train", lookup); }),
                       "split train has 3 shards but shard 1 (train-00001-of-00003.parquet) is missing"));
  hub.dataset_file("org/d", "data/train-00001-of-00002.parquet");
  EXPECT_TRUE(
      contains(error_of([&] { resolve_dataset_split(name, "train", lookup); }), "disagree on their number"));
  hub.dataset_file("org/d", "data/test-00000-of-00001.parquet");
  hub.dataset_file("org/d", "data/test-00000-of-00001-abcdef.parquet");
  EXPECT_TRUE(
      contains(error_of([&] { resolve_dataset_split(name, "test", lookup); }), "two files for shard 0"));
}

TEST_F(HubTest, DataFolderIsTheDefaultConfig) {
  hub.dataset_file("org/d", "data/train-00000-of-00001-9d86c97ac0a64736.parquet");
  hub.dataset_file("org/d", "README.md");
  const auto files = resolve_dataset_split({"org/d", ""}, "train", lookup);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].filename(), "train-00000-of-00001-9d86c97ac0a64736.parquet");
  EXPECT_EQ(resolve_dataset_split({"org/d", "default"}, "train", lookup), files);
  EXPECT_TRUE(contains(error_of([&] {
                         resolve_dataset_split({"org/d", ""}, "test", lookup);
                       }),
                       "has no split test: the splits there are train"));
}

TEST_F(HubTest, GlueMnliHasItsOwnSplitNames) {
  for (const char* split :
       {"train", "validation_matched", "validation_mismatched", "test_matched", "test_mismatched"}) {
    hub.dataset_file("nyu-mll/glue", fmt::format("mnli/{}-00000-of-00001.parquet", split));
  }
  hub.dataset_file("nyu-mll/glue", "mrpc/train-00000-of-00001.parquet");
  const DatasetName mnli = canonical_dataset("glue", "mnli");
  EXPECT_EQ(dataset_splits(mnli, lookup),
            (std::vector<std::string>{"test_matched", "test_mismatched", "train", "validation_matched",
                                      "validation_mismatched"}));
  EXPECT_EQ(resolve_dataset_split(mnli, "validation_matched", lookup).at(0).filename(),
            "validation_matched-00000-of-00001.parquet");
  EXPECT_TRUE(contains(error_of([&] { resolve_dataset_split(mnli, "validation", lookup); }),
                       "test_matched, test_mismatched, train, validation_matched, validation_mismatched"));
  EXPECT_TRUE(
      contains(error_of([&] { resolve_dataset_split(canonical_dataset("glue", "qnli"), "train", lookup); }),
               "has no config qnli"));
  EXPECT_TRUE(contains(error_of([&] {
                         resolve_dataset_split({"nyu-mll/glue", ""}, "train", lookup);
                       }),
                       "several configs"));
}

TEST_F(HubTest, LoadingScriptDatasetReadsTheParquetExport) {
  const DatasetName conll = canonical_dataset("conll2003", "");
  hub.dataset_file("eriktks/conll2003", "conll2003.py");
  EXPECT_TRUE(
      contains(error_of([&] { resolve_dataset_split(conll, "train", lookup); }),
               fmt::format("holds a loading script (conll2003.py) and no parquet files; shmtrain reads "
                           "the Hub's parquet export of such a dataset: fill the cache with `huggingface-cli "
                           "download eriktks/conll2003 --repo-type dataset --revision refs/convert/parquet "
                           "--cache-dir {}`",
                           (dir / "cache").string())));
  hub.dataset_file("eriktks/conll2003", "conll2003/train/0001.parquet", kTag);
  hub.dataset_file("eriktks/conll2003", "conll2003/train/0000.parquet", kTag);
  hub.dataset_file("eriktks/conll2003", "conll2003/validation/0000.parquet", kTag);
  const fs::path exported = hub.repo(HubRepoType::dataset, "eriktks/conll2003") / "snapshots" / kTag;
  EXPECT_EQ(resolve_dataset_split(conll, "train", lookup),
            (std::vector<fs::path>{exported / "conll2003/train/0000.parquet",
                                   exported / "conll2003/train/0001.parquet"}));
  EXPECT_EQ(resolve_dataset_split(conll, "train", at("refs/convert/parquet")).size(), 2u);
  hub.dataset_file("eriktks/conll2003", "conll2003/test/0001.parquet", kTag);
  EXPECT_TRUE(contains(error_of([&] { resolve_dataset_split(conll, "test", lookup); }),
                       "parquet file 0000.parquet is missing"));
}

TEST_F(HubTest, ExportAloneServesMainAndPartialSplitsAreRefused) {
  hub.dataset_file("org/big", "default/train/0000.parquet", kTag);
  hub.dataset_file("org/big", "default/partial-test/0000.parquet", kTag);
  EXPECT_EQ(resolve_dataset_split({"org/big", ""}, "train", lookup).size(), 1u);
  EXPECT_TRUE(contains(error_of([&] {
                         resolve_dataset_split({"org/big", ""}, "test", lookup);
                       }),
                       "holds only part of split test"));
}

TEST_F(HubTest, MissingDatasetNamesTheLegacyFolderAndTheExport) {
  const std::string message =
      error_of([&] { resolve_dataset_split(canonical_dataset("squad", ""), "train", lookup); });
  EXPECT_TRUE(contains(message, (dir / "cache/datasets--rajpurkar--squad").string()));
  EXPECT_TRUE(contains(message, (dir / "cache/datasets--squad").string()));
  EXPECT_TRUE(contains(message, "`huggingface-cli download rajpurkar/squad --repo-type dataset --cache-dir"));
  EXPECT_TRUE(contains(message, "--revision refs/convert/parquet"));
  hub.dataset_file("squad", "plain_text/train-00000-of-00001.parquet");  // cached under its old name
  EXPECT_EQ(resolve_dataset_split(canonical_dataset("squad", ""), "train", lookup).size(), 1u);
}

TEST_F(HubTest, BrokenShardLinkIsNamed) {
  const fs::path shard =
      hub.add(HubRepoType::dataset, "org/d", kMain, "data/train-00000-of-00001.parquet", "PAR1");
  hub.ref(HubRepoType::dataset, "org/d", "main", kMain);
  fs::remove(shard.parent_path() / fs::read_symlink(shard));
  EXPECT_TRUE(contains(error_of([&] {
                         resolve_dataset_split({"org/d", ""}, "train", lookup);
                       }),
                       shard.string() + " -> ../../../blobs/"));
}

}  // namespace
}  // namespace shmtrain::io
