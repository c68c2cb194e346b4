#pragma once
// Models and datasets in the local Hugging Face cache, read as huggingface_hub left it.
// shmtrain never downloads: an id the cache lacks is an InputError naming every folder tried
// and the `huggingface-cli download` command that fills it.
//
// The cache, as huggingface_hub writes it (https://huggingface.co/docs/hub/local-cache, and
// file_download.py's try_to_load_from_cache for the reading rule):
//   <cache>/models--ORG--NAME/              datasets--ORG--NAME/ for datasets; an id without ORG
//                                           ("bert-base-uncased") is models--bert-base-uncased
//     refs/<revision>                       one line, the commit hash of a branch or tag; a pull
//                                           request "refs/pr/3" is the file refs/refs/pr/3
//     snapshots/<commit>/<path in repo>     relative symlinks to ../../blobs/<hash>
//     blobs/<git sha1 or LFS sha256>        the contents
//     .no_exist/<commit>/<path in repo>     empty markers: the repo has no such file there
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shmtrain::io {

enum class HubRepoType { model, dataset };

struct HubLookup {
  std::optional<std::filesystem::path> cache_dir;  // --cache_dir; unset: see hub_cache_dir()
  std::string revision = "main";                   // branch, tag, refs/pr/N, or commit (hash or prefix)
};

struct HubCacheDir {
  std::filesystem::path path;
  std::string origin;  // where the path came from, for messages: "--cache_dir", "$HF_HOME/hub", ...
  // Set when $TRANSFORMERS_CACHE names another folder: transformers < 5 stored models there.
  std::optional<std::filesystem::path> transformers_cache;
};

// The cache folder, as huggingface_hub's constants.py chooses it: `cache_dir` if given, else
// $HF_HUB_CACHE, else $HUGGINGFACE_HUB_CACHE (its older name), else $HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub. A leading ~ is expanded;
// an empty variable counts as unset. The only reader of these environment variables.
HubCacheDir hub_cache_dir(const std::optional<std::filesystem::path>& cache_dir);

// Whether `text` has the form of a Hub repo id ("NAME" or "ORG/NAME"), by huggingface_hub's
// validate_repo_id: letters, digits, '_', '-', '.', no "--" or "..", at most 96 characters.
bool is_hub_repo_id(std::string_view text);

// The ids a repo may be cached under, the given one first: the Hub moved the canonical models
// and datasets under organisations in 2024 (bert-base-uncased -> google-bert/bert-base-uncased,
// squad -> rajpurkar/squad) and huggingface_hub names the cache folder by the id it was asked for.
std::vector<std::string> hub_repo_candidates(std::string_view repo_id, HubRepoType type);

// `huggingface-cli download REPO [--repo-type dataset] [--revision R] [--cache-dir DIR]`: the
// command that fills the cache this lookup reads (--cache-dir only where --cache_dir chose it).
std::string hub_download_command(std::string_view repo_id, HubRepoType type, const HubLookup& lookup);

// One revision of one repo in the cache.
struct HubSnapshot {
  std::filesystem::path folder;  // <cache>/<type>s--ORG--NAME/snapshots/<commit>
  std::string repo_id;           // the id it is cached under (one of hub_repo_candidates)
  HubRepoType type = HubRepoType::model;
  std::string revision;          // as asked
  std::string commit;            // the snapshot folder's name
  std::string download_command;  // `huggingface-cli download ...` that fills this revision
};

// The snapshot of `lookup.revision` of `repo_id`: refs/<revision> names the commit, else the
// revision is a commit (or a unique prefix of one) with a snapshot folder. Tries every id of
// hub_repo_candidates. A model snapshot is checked whole, since it is read as a folder: every
// link must reach its blob. Throws InputError: not an id, not cached (naming every folder tried,
// the cache's origin and the download command), revision not cached (listing those that are),
// a ref naming a commit without a snapshot, a broken link.
HubSnapshot resolve_hub_snapshot(std::string_view repo_id, HubRepoType type, const HubLookup& lookup);

// As resolve_hub_snapshot, but nullopt where that would say the repo or revision is not cached.
std::optional<HubSnapshot> find_hub_snapshot(std::string_view repo_id, HubRepoType type,
                                             const HubLookup& lookup);

// `file` (a path inside the repo, e.g. "config.json") in the snapshot: the snapshot path, whose
// link the system follows on open (the name stays meaningful in messages). Throws InputError:
// a broken link into blobs/, a file the repo lacks at that commit (.no_exist), a file the
// download left out (naming the snapshot and the download command).
std::filesystem::path hub_snapshot_file(const HubSnapshot& snapshot, std::string_view file);
// nullopt where hub_snapshot_file would say the file is absent; a broken link still throws.
std::optional<std::filesystem::path> find_hub_snapshot_file(const HubSnapshot& snapshot,
                                                            std::string_view file);

// ---- datasets (hub_datasets.cpp) ----
//
// Parquet files as the Hub stores them, all three layouts read the same way:
//   <config>/<split>-00000-of-00003[-<hash>].parquet  datasets' push_to_hub and the Hub's
//                                                     "Convert dataset to Parquet" commits
//   data/<split>-00000-of-00001[-<hash>].parquet      the same for the single config "default"
//   <config>/<split>/0000.parquet                     the parquet export on refs/convert/parquet
// A dataset whose main revision holds only a loading script (conll2003.py) is read from its
// parquet export refs/convert/parquet, as the datasets library does; so is one whose main is
// not cached but whose export is (only when the revision asked for is "main").

struct DatasetName {
  std::string repo_id;
  std::string config;  // empty: the only config in the cache
};

// `--dataset_name` / `--dataset_config_name` of the Hugging Face examples: squad ->
// rajpurkar/squad (plain_text), squad_v2 -> rajpurkar/squad_v2 (squad_v2), glue -> nyu-mll/glue
// (config required: the task), conll2003 -> eriktks/conll2003 (conll2003); other ids as given.
// A given config wins. Throws InputError: not an id, GLUE without a task or with an unknown one.
DatasetName canonical_dataset(std::string_view dataset_name, std::string_view config_name);

// The parquet files of `split`, every shard in shard order, each link checked. Throws
// InputError: dataset not cached, config ambiguous or absent (listing those found), split
// absent (listing those found), a missing shard (naming it), a partial export.
std::vector<std::filesystem::path> resolve_dataset_split(const DatasetName& name, std::string_view split,
                                                         const HubLookup& lookup);

// The splits cached for the dataset's config, sorted (MNLI: train, validation_matched, ...).
std::vector<std::string> dataset_splits(const DatasetName& name, const HubLookup& lookup);

}  // namespace shmtrain::io
