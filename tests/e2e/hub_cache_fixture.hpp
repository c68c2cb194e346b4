#pragma once
// A Hugging Face cache as huggingface_hub lays it out, built by the e2e tests that run users'
// commands verbatim (hub_commands_test.cpp, hub_mlm_swag_test.cpp): tiny models trained for one
// step put under the ids the commands name, and parquet splits of tests/fixtures/hub/.
#include <filesystem>
#include <map>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace shmtrain::testing::hub_cache {

namespace fs = std::filesystem;

inline constexpr const char* kCommit = "0123456789abcdef0123456789abcdef01234567";

// Puts `files` (path in repo -> file to copy) into the cache as huggingface_hub does: the
// contents in blobs/, the snapshot's entries relative links into them, refs/main the commit.
inline void put_in_cache(const fs::path& cache, const std::string& folder, const std::map<std::string, fs::path>& files,
                  const std::string& ref = "main", const std::string& commit = kCommit) {
  const fs::path repo = cache / folder;
  int blob = static_cast<int>(ref.size()) * 1000;
  for (const auto& [name, source] : files) {
    const std::string blob_name = fmt::format("{:040x}", ++blob);
    fs::create_directories(repo / "blobs");
    fs::copy_file(source, repo / "blobs" / blob_name, fs::copy_options::overwrite_existing);
    const fs::path link = repo / "snapshots" / commit / name;
    fs::create_directories(link.parent_path());
    const fs::path inside(name);
    fs::path target = "../../blobs";
    for (auto it = inside.begin(); std::next(it) != inside.end(); ++it) target = ".." / target;
    fs::create_symlink(target / blob_name, link);
  }
  write_file(repo / "refs" / ref, commit);
}

// A model folder's files, as a map for put_in_cache.
inline std::map<std::string, fs::path> folder_files(const fs::path& folder) {
  std::map<std::string, fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file()) files[entry.path().filename().string()] = entry.path();
  }
  return files;
}

// A model saved by shmtrain after one step from random weights: config.json,
// model.safetensors and the tokenizer files.
inline fs::path tiny_model(const TempDir& dir, const std::string& name, const std::string& arguments) {
  const fs::path out = dir / name;
  const CliRun run = run_shmtrain("train --do_train --max_steps 1 --save_steps 0 --disable_tqdm --output_dir " +
                                      out.string() + " " + arguments,
                                  source_dir());
  EXPECT_EQ(run.exit_code, 0) << run.output();
  return out;
}

inline CliRun with_cache(const fs::path& cache, const std::string& arguments) {
  return run_command(fmt::format("cd {} && env -u HF_HOME HF_HUB_CACHE={} {} {}", source_dir().string(),
                                 cache.string(), shmtrain_binary().string(), arguments));
}

inline nlohmann::json read_json(const fs::path& path) { return nlohmann::json::parse(read_file(path)); }

}  // namespace shmtrain::testing::hub_cache
