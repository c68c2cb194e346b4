// Dataset splits in the Hugging Face cache: which snapshot, which config folder, which
// parquet shards, checked complete. The layouts are described in hub_cache.hpp.
#include <algorithm>
#include <array>
#include <map>
#include <regex>
#include <set>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/hub_cache.hpp"

namespace shmtrain::io {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kParquetExport = "refs/convert/parquet";

// The config each moved dataset's parquet is stored under (its folder on the Hub).
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kDefaultConfigs{{
    {"rajpurkar/squad", "plain_text"},
    {"rajpurkar/squad_v2", "squad_v2"},
    {"eriktks/conll2003", "conll2003"},
    {"allenai/swag", "regular"},  // run_swag's load_dataset("swag", "regular")
}};
// nyu-mll/glue's configs: run_glue's task names and MNLI's two evaluation-only halves.
constexpr std::array<std::string_view, 12> kGlueConfigs{
    "ax",  "cola", "mnli", "mnli_matched", "mnli_mismatched", "mrpc", "qnli", "qqp",
    "rte", "sst2", "stsb", "wnli"};

// <split>-00000-of-00002.parquet, optionally with push_to_hub's older "-<hash>" before .parquet.
struct Shard {
  long index = 0;
  long count = 0;
  std::string file;
};

// The splits in one folder: sharded files (data files layout) and NNNN.parquet subfolders
// (parquet export layout), and the export's "partial-<split>" subfolders of oversized splits.
struct FolderSplits {
  std::map<std::string, std::vector<Shard>> sharded;
  std::map<std::string, std::vector<std::string>> exported;  // split -> file names, sorted
  std::set<std::string> partial;
  bool empty() const { return sharded.empty() && exported.empty() && partial.empty(); }
};

std::vector<std::string> parquet_numbered(const fs::path& folder) {
  static const std::regex numbered(R"(^\d+\.parquet$)");
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (std::regex_match(name, numbered)) names.push_back(name);
  }
  std::sort(names.begin(), names.end(),
            [](const std::string& a, const std::string& b) { return std::stol(a) < std::stol(b); });
  return names;
}

FolderSplits scan_folder(const fs::path& folder) {
  static const std::regex sharded(R"(^(.+?)-(\d{5,})-of-(\d{5,})(?:-[0-9a-f]+)?\.parquet$)");
  FolderSplits splits;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    std::error_code type_error;
    if (it->is_directory(type_error)) {
      if (name.starts_with(".") || parquet_numbered(it->path()).empty()) continue;
      if (name.starts_with("partial-")) {
        splits.partial.insert(name.substr(8));
      } else {
        splits.exported[name] = parquet_numbered(it->path());
      }
      continue;
    }
    std::smatch match;
    if (std::regex_match(name, match, sharded)) {
      splits.sharded[match[1].str()].push_back({std::stol(match[2]), std::stol(match[3]), name});
    }
  }
  return splits;
}

std::string folder_config(const std::string& folder) { return folder == "data" ? "default" : folder; }

// The configs with parquet files in the snapshot: top-level folders ("data" is "default").
std::vector<std::string> snapshot_configs(const HubSnapshot& snapshot) {
  std::set<std::string> configs;
  std::error_code error;
  for (fs::directory_iterator it(snapshot.folder, error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    std::error_code type_error;
    if (name.starts_with(".") || !it->is_directory(type_error)) continue;
    if (!scan_folder(it->path()).empty()) configs.insert(folder_config(name));
  }
  return {configs.begin(), configs.end()};
}

std::vector<std::string> loading_scripts(const HubSnapshot& snapshot) {
  std::vector<std::string> scripts;
  std::error_code error;
  for (fs::directory_iterator it(snapshot.folder, error), end; !error && it != end; it.increment(error)) {
    if (it->path().extension() == ".py") scripts.push_back(it->path().filename().string());
  }
  std::sort(scripts.begin(), scripts.end());
  return scripts;
}

std::string export_command(const DatasetName& name, const HubLookup& lookup) {
  HubLookup exported = lookup;
  exported.revision = std::string(kParquetExport);
  return hub_download_command(name.repo_id, HubRepoType::dataset, exported);
}

[[noreturn]] void fail_no_parquet(const HubSnapshot& snapshot, const DatasetName& name,
                                  const HubLookup& lookup) {
  const std::vector<std::string> scripts = loading_scripts(snapshot);
  if (!scripts.empty()) {
    fail_input(
        "dataset {} at {} ({}) holds a loading script ({}) and no parquet files; shmtrain reads the Hub's "
        "parquet export of such a dataset: fill the cache with `{}`",
        snapshot.repo_id, snapshot.revision, snapshot.folder.string(), fmt::join(scripts, ", "),
        export_command(name, lookup));
  }
  fail_input(
      "dataset {} at {} ({}) holds no parquet files in a layout shmtrain reads (<config>/<split>-00000-of-"
      "00001.parquet, data/<split>-00000-of-00001.parquet, <config>/<split>/0000.parquet); its own files can "
      "be passed as --train_file / --validation_file",
      snapshot.repo_id, snapshot.revision, snapshot.folder.string());
}

// The snapshot to read: the revision asked for, or for "main" the parquet export where main
// holds no parquet or is not cached (as the datasets library falls back to the export).
HubSnapshot dataset_snapshot(const DatasetName& name, const HubLookup& lookup) {
  if (lookup.revision != "main") {
    HubSnapshot snapshot = resolve_hub_snapshot(name.repo_id, HubRepoType::dataset, lookup);
    if (snapshot_configs(snapshot).empty()) fail_no_parquet(snapshot, name, lookup);
    return snapshot;
  }
  const std::optional<HubSnapshot> main = find_hub_snapshot(name.repo_id, HubRepoType::dataset, lookup);
  if (main && !snapshot_configs(*main).empty()) return *main;
  HubLookup exported = lookup;
  exported.revision = std::string(kParquetExport);
  if (auto snapshot = find_hub_snapshot(name.repo_id, HubRepoType::dataset, exported)) return *snapshot;
  if (main) fail_no_parquet(*main, name, lookup);
  try {
    resolve_hub_snapshot(name.repo_id, HubRepoType::dataset, lookup);
  } catch (const InputError& error) {
    throw InputError(fmt::format("{} (or, for a dataset with a loading script, its parquet export: `{}`)",
                                 error.what(), export_command(name, lookup)));
  }
  fail_input("dataset {}: main is cached but could not be read", name.repo_id);
}

std::string choose_config(const HubSnapshot& snapshot, const DatasetName& name) {
  const std::vector<std::string> configs = snapshot_configs(snapshot);
  if (!name.config.empty()) {
    if (std::find(configs.begin(), configs.end(), name.config) != configs.end()) return name.config;
    fail_input(
        "dataset {} has no config {} in {} (configs there: {}): pass --dataset_config_name with one of them, "
        "or fill the cache with `{}`",
        snapshot.repo_id, name.config, snapshot.folder.string(), fmt::join(configs, ", "),
        snapshot.download_command);
  }
  if (configs.size() == 1) return configs.front();
  fail_input("dataset {} has several configs in {} ({}): pass --dataset_config_name with one",
             snapshot.repo_id, snapshot.folder.string(), fmt::join(configs, ", "));
}

// Folders that hold the config: <config>/, and data/ for "default".
std::vector<fs::path> config_folders(const HubSnapshot& snapshot, const std::string& config) {
  std::vector<fs::path> folders;
  std::error_code error;
  if (fs::is_directory(snapshot.folder / config, error)) folders.push_back(snapshot.folder / config);
  if (config == "default" && fs::is_directory(snapshot.folder / "data", error)) {
    folders.push_back(snapshot.folder / "data");
  }
  return folders;
}

// Sharded files: every index 0..count-1 once, all of one count, in index order.
std::vector<std::string> complete_shards(std::vector<Shard> shards, const std::string& split,
                                         const fs::path& folder, const HubSnapshot& snapshot) {
  std::sort(shards.begin(), shards.end(), [](const Shard& a, const Shard& b) { return a.index < b.index; });
  const long count = shards.front().count;
  for (const Shard& shard : shards) {
    if (shard.count != count) {
      fail_input(
          "{}: the shards of split {} disagree on their number ({} and {}): files of two uploads mixed?",
          folder.string(), split, shards.front().file, shard.file);
    }
  }
  std::vector<std::string> files;
  for (long index = 0; index < count; ++index) {
    const auto at =
        std::find_if(shards.begin(), shards.end(), [&](const Shard& s) { return s.index == index; });
    if (at == shards.end()) {
      fail_input(
          "{}: split {} has {} shards but shard {} ({}-{:05d}-of-{:05d}.parquet) is missing: fill the cache "
          "with "
          "`{}`",
          folder.string(), split, count, index, split, index, count, snapshot.download_command);
    }
    if (std::next(at) != shards.end() && std::next(at)->index == index) {
      fail_input("{}: two files for shard {} of split {}: {} and {}", folder.string(), index, split, at->file,
                 std::next(at)->file);
    }
    files.push_back(at->file);
  }
  if (shards.size() != files.size()) {
    fail_input("{}: split {} has shards numbered past its count {}", folder.string(), split, count);
  }
  return files;
}

// The export's NNNN.parquet: numbered 0, 1, ... without a gap (the export records no count).
void check_export_numbering(const std::vector<std::string>& files, const fs::path& folder,
                            const HubSnapshot& snapshot) {
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (std::stol(files[i]) != static_cast<long>(i)) {
      fail_input("{}: parquet file {:04d}.parquet is missing (found {}): fill the cache with `{}`",
                 folder.string(), i, fmt::join(files, ", "), snapshot.download_command);
    }
  }
}

std::vector<std::string> config_splits(const HubSnapshot& snapshot, const std::string& config) {
  std::set<std::string> splits;
  for (const fs::path& folder : config_folders(snapshot, config)) {
    const FolderSplits found = scan_folder(folder);
    for (const auto& [split, shards] : found.sharded) splits.insert(split);
    for (const auto& [split, files] : found.exported) splits.insert(split);
  }
  return {splits.begin(), splits.end()};
}

}  // namespace

DatasetName canonical_dataset(std::string_view dataset_name, std::string_view config_name) {
  if (!is_hub_repo_id(dataset_name)) {
    fail_input("dataset '{}' is not a Hugging Face dataset id (NAME or ORG/NAME)", dataset_name);
  }
  DatasetName name{std::string(dataset_name), std::string(config_name)};
  if (name.repo_id.find('/') == std::string::npos) {
    const std::vector<std::string> names = hub_repo_candidates(name.repo_id, HubRepoType::dataset);
    name.repo_id = names.back();
  }
  if (name.repo_id == "nyu-mll/glue") {
    if (name.config.empty()) {
      fail_input("dataset {} needs a config, the GLUE task: pass --dataset_config_name, one of {}",
                 dataset_name, fmt::join(kGlueConfigs, ", "));
    }
    if (std::find(kGlueConfigs.begin(), kGlueConfigs.end(), name.config) == kGlueConfigs.end()) {
      fail_input("dataset {} has no config '{}': the GLUE tasks are {}", dataset_name, name.config,
                 fmt::join(kGlueConfigs, ", "));
    }
  }
  for (const auto& [repo_id, config] : kDefaultConfigs) {
    if (name.config.empty() && name.repo_id == repo_id) name.config = config;
  }
  return name;
}

std::vector<fs::path> resolve_dataset_split(const DatasetName& name, std::string_view split_name,
                                            const HubLookup& lookup) {
  const HubSnapshot snapshot = dataset_snapshot(name, lookup);
  const std::string config = choose_config(snapshot, name);
  const std::string split(split_name);
  std::vector<std::string> sources;  // folders the split was found in
  std::vector<fs::path> files;
  bool partial = false;
  for (const fs::path& folder : config_folders(snapshot, config)) {
    const FolderSplits found = scan_folder(folder);
    partial = partial || found.partial.count(split) > 0;
    const fs::path relative = folder.filename();  // the config's folder, or data/
    if (auto it = found.sharded.find(split); it != found.sharded.end()) {
      sources.push_back(folder.string());
      for (const std::string& file : complete_shards(it->second, split, folder, snapshot)) {
        files.push_back(hub_snapshot_file(snapshot, (relative / file).string()));
      }
    }
    if (auto it = found.exported.find(split); it != found.exported.end()) {
      sources.push_back((folder / split).string());
      check_export_numbering(it->second, folder / split, snapshot);
      for (const std::string& file : it->second) {
        files.push_back(hub_snapshot_file(snapshot, (relative / split / file).string()));
      }
    }
  }
  if (sources.size() > 1) {
    fail_input("dataset {}: split {} of config {} is stored twice ({}): remove one", snapshot.repo_id, split,
               config, fmt::join(sources, " and "));
  }
  if (!files.empty()) return files;
  if (partial) {
    fail_input(
        "dataset {}: the parquet export holds only part of split {} of config {} (partial-{}/: the Hub "
        "exports only the first part of a large split); download the dataset's own files instead",
        snapshot.repo_id, split, config, split);
  }
  fail_input("dataset {} (config {}, {}) has no split {}: the splits there are {}", snapshot.repo_id, config,
             snapshot.folder.string(), split, fmt::join(config_splits(snapshot, config), ", "));
}

std::vector<std::string> dataset_splits(const DatasetName& name, const HubLookup& lookup) {
  const HubSnapshot snapshot = dataset_snapshot(name, lookup);
  return config_splits(snapshot, choose_config(snapshot, name));
}

}  // namespace shmtrain::io
