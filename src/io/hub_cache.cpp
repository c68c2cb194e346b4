#include "shmtrain/io/hub_cache.hpp"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::io {
namespace {

namespace fs = std::filesystem;

struct HubEnvironment {
  std::optional<std::string> hf_hub_cache;
  std::optional<std::string> huggingface_hub_cache;
  std::optional<std::string> hf_home;
  std::optional<std::string> xdg_cache_home;
  std::optional<std::string> transformers_cache;
  std::string home;
};

std::optional<std::string> variable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

// The one place that reads the environment for the cache. An empty value counts as unset
// (huggingface_hub would take "" as the current folder, which nobody means).
HubEnvironment read_environment() {
  HubEnvironment env;
  env.hf_hub_cache = variable("HF_HUB_CACHE");
  env.huggingface_hub_cache = variable("HUGGINGFACE_HUB_CACHE");
  env.hf_home = variable("HF_HOME");
  env.xdg_cache_home = variable("XDG_CACHE_HOME");
  env.transformers_cache = variable("TRANSFORMERS_CACHE");
  if (auto home = variable("HOME")) {
    env.home = *home;
  } else if (const passwd* entry = ::getpwuid(::getuid()); entry != nullptr && entry->pw_dir != nullptr) {
    env.home = entry->pw_dir;  // as Python's os.path.expanduser without $HOME
  }
  return env;
}

// os.path.expanduser for "~" and "~/..." ("~user" is left as written).
fs::path expand_user(const std::string& text, const std::string& home) {
  if (text == "~") return home;
  if (text.starts_with("~/")) return fs::path(home) / text.substr(2);
  return text;
}

const char* type_word(HubRepoType type) { return type == HubRepoType::model ? "model" : "dataset"; }

// huggingface_hub's repo_folder_name: "<type>s" and the id's parts joined by "--".
std::string repo_folder_name(std::string_view repo_id, HubRepoType type) {
  std::string name = type == HubRepoType::model ? "models--" : "datasets--";
  for (char c : repo_id) {
    if (c == '/') {
      name += "--";
    } else {
      name += c;
    }
  }
  return name;
}

// Single quotes where the shell would split or expand the word.
std::string shell_word(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_-./~+@:,=").find(c) != std::string_view::npos;
  });
  if (plain) return word;
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string download_command(std::string_view repo_id, HubRepoType type, std::string_view revision,
                             const HubCacheDir& cache) {
  std::string command = fmt::format("huggingface-cli download {}", repo_id);
  if (type == HubRepoType::dataset) command += " --repo-type dataset";
  if (revision != "main") command += fmt::format(" --revision {}", shell_word(std::string(revision)));
  if (cache.origin == "--cache_dir") {
    command += fmt::format(" --cache-dir {}", shell_word(cache.path.string()));
  }
  return command;
}

bool is_hex(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
}

// A revision is a path under refs/ ("main", "v1.0", "refs/pr/3"): no empty or ".." parts.
void check_revision(std::string_view revision) {
  bool ok = !revision.empty() && revision.front() != '/' && revision.back() != '/' &&
            revision.find('\0') == std::string_view::npos;
  for (const auto& part : fs::path(std::string(revision))) ok = ok && part != ".." && part != ".";
  if (!ok) fail_input("revision '{}' is not a branch, tag or commit name", revision);
}

std::vector<std::string> sorted_folder_names(const fs::path& folder) {
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    std::error_code type_error;
    if (it->is_directory(type_error)) names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string read_ref(const fs::path& file) {
  std::ifstream in(file);
  if (!in) fail_input("cannot read {}", file.string());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// "main -> 1a2b3c4d5e6f, v1.0 -> ..." for every file under refs/.
std::string describe_refs(const fs::path& repo) {
  std::vector<std::string> refs;
  std::error_code error;
  for (fs::recursive_directory_iterator it(repo / "refs", error), end; !error && it != end;
       it.increment(error)) {
    std::error_code type_error;
    if (!it->is_regular_file(type_error)) continue;
    refs.push_back(fmt::format("{} -> {}", fs::relative(it->path(), repo / "refs").string(),
                               read_ref(it->path()).substr(0, 12)));
  }
  std::sort(refs.begin(), refs.end());
  return refs.empty() ? "none" : fmt::format("{}", fmt::join(refs, ", "));
}

struct RevisionResult {
  std::string commit;   // set on success
  std::string problem;  // set on failure
};

// try_to_load_from_cache's rule: refs/<revision> names the commit, else the revision is one;
// a unique prefix of a cached commit is accepted too, as git accepts one.
RevisionResult resolve_revision(const fs::path& repo, std::string_view revision) {
  const fs::path snapshots = repo / "snapshots";
  const fs::path ref = repo / "refs" / std::string(revision);
  std::error_code error;
  if (fs::is_regular_file(ref, error)) {
    const std::string commit = read_ref(ref);
    if (commit.empty() || commit.find('/') != std::string::npos || commit == "..") {
      return {"", fmt::format("{} holds no commit hash", ref.string())};
    }
    if (!fs::is_directory(snapshots / commit, error)) {
      return {"", fmt::format("{} names commit {}, but {} is missing (a download that did not finish, or a "
                              "deleted revision?)",
                              ref.string(), commit, (snapshots / commit).string())};
    }
    return {commit, ""};
  }
  if (fs::is_directory(snapshots / std::string(revision), error)) return {std::string(revision), ""};
  const std::vector<std::string> cached = sorted_folder_names(snapshots);
  if (is_hex(revision) && revision.size() >= 7 && revision.size() < 40) {
    std::vector<std::string> matches;
    std::copy_if(cached.begin(), cached.end(), std::back_inserter(matches),
                 [&](const std::string& commit) { return commit.starts_with(revision); });
    if (matches.size() == 1) return {matches.front(), ""};
    if (matches.size() > 1) {
      return {"", fmt::format("revision {} matches several cached commits ({}): give more of the hash",
                              revision, fmt::join(matches, ", "))};
    }
  }
  return {"", fmt::format(
                  "{} is cached but not at revision {} (no refs/{} and no snapshots/{}); cached refs: {}; "
                  "snapshots: {}",
                  repo.string(), revision, revision, revision, describe_refs(repo),
                  cached.empty() ? std::string("none") : fmt::format("{}", fmt::join(cached, ", ")))};
}

struct SnapshotSearch {
  std::optional<HubSnapshot> snapshot;
  HubCacheDir cache;
  std::vector<fs::path> tried;        // repo folders looked for
  std::vector<std::string> problems;  // of repo folders that exist, without the revision
  std::string command;                // the download command for the first candidate
};

SnapshotSearch search_snapshot(std::string_view repo_id, HubRepoType type, const HubLookup& lookup) {
  if (!is_hub_repo_id(repo_id)) {
    fail_input("'{}' is not a Hugging Face {} id (NAME or ORG/NAME)", repo_id, type_word(type));
  }
  check_revision(lookup.revision);
  SnapshotSearch search;
  search.cache = hub_cache_dir(lookup.cache_dir);
  const std::vector<std::string> candidates = hub_repo_candidates(repo_id, type);
  search.command = download_command(candidates.front(), type, lookup.revision, search.cache);
  for (const std::string& candidate : candidates) {
    const fs::path repo = search.cache.path / repo_folder_name(candidate, type);
    search.tried.push_back(repo);
    std::error_code error;
    if (!fs::is_directory(repo, error)) continue;
    RevisionResult revision = resolve_revision(repo, lookup.revision);
    if (revision.commit.empty()) {
      search.problems.push_back(std::move(revision.problem));
      continue;
    }
    search.snapshot = HubSnapshot{repo / "snapshots" / revision.commit,
                                  candidate,
                                  type,
                                  lookup.revision,
                                  revision.commit,
                                  download_command(candidate, type, lookup.revision, search.cache)};
    return search;
  }
  return search;
}

[[noreturn]] void fail_broken_link(const fs::path& link, const std::string& command) {
  std::error_code error;
  fail_input("{} -> {}: a broken link into blobs/ (an interrupted download?): fetch it again with `{}`",
             link.string(), fs::read_symlink(link, error).string(), command);
}

// Every link in the snapshot reaches its blob.
void check_links(const HubSnapshot& snapshot) {
  std::error_code error;
  for (fs::recursive_directory_iterator it(snapshot.folder, error), end; !error && it != end;
       it.increment(error)) {
    std::error_code status_error;
    if (it->is_symlink(status_error) && !fs::exists(it->path(), status_error)) {
      fail_broken_link(it->path(), snapshot.download_command);
    }
  }
}

// The pre-2024 names of the canonical repos the Hub moved under organisations. For models,
// every legacy name with these prefixes moved to the organisation beside it.
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kModelPrefixOrgs{{
    {"bert-", "google-bert"},
    {"distilbert-", "distilbert"},
    {"distilroberta-", "distilbert"},
    {"roberta-", "FacebookAI"},
    {"xlm-roberta-", "FacebookAI"},
}};
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kDatasetMoves{{
    {"squad", "rajpurkar/squad"},
    {"squad_v2", "rajpurkar/squad_v2"},
    {"glue", "nyu-mll/glue"},
    {"conll2003", "eriktks/conll2003"},
    {"wikitext", "Salesforce/wikitext"},
    {"swag", "allenai/swag"},
}};

// The other name of a moved repo: legacy -> organisation's, organisation's -> legacy.
std::optional<std::string> other_name(std::string_view repo_id, HubRepoType type) {
  const auto slash = repo_id.find('/');
  if (type == HubRepoType::dataset) {
    for (const auto& [legacy, moved] : kDatasetMoves) {
      if (repo_id == legacy) return std::string(moved);
      if (repo_id == moved) return std::string(legacy);
    }
    return std::nullopt;
  }
  const std::string_view name = slash == std::string_view::npos ? repo_id : repo_id.substr(slash + 1);
  for (const auto& [prefix, org] : kModelPrefixOrgs) {
    if (!name.starts_with(prefix)) continue;
    if (slash == std::string_view::npos) return fmt::format("{}/{}", org, name);
    if (repo_id.substr(0, slash) == org) return std::string(name);
  }
  return std::nullopt;
}

}  // namespace

HubCacheDir hub_cache_dir(const std::optional<fs::path>& cache_dir) {
  const HubEnvironment env = read_environment();
  HubCacheDir cache;
  if (cache_dir) {
    cache = {expand_user(cache_dir->string(), env.home), "--cache_dir", std::nullopt};
  } else if (env.hf_hub_cache) {
    cache = {expand_user(*env.hf_hub_cache, env.home), "$HF_HUB_CACHE", std::nullopt};
  } else if (env.huggingface_hub_cache) {
    cache = {expand_user(*env.huggingface_hub_cache, env.home), "$HUGGINGFACE_HUB_CACHE", std::nullopt};
  } else if (env.hf_home) {
    cache = {expand_user(*env.hf_home, env.home) / "hub", "$HF_HOME/hub", std::nullopt};
  } else if (env.xdg_cache_home) {
    cache = {expand_user(*env.xdg_cache_home, env.home) / "huggingface" / "hub",
             "$XDG_CACHE_HOME/huggingface/hub", std::nullopt};
  } else {
    cache = {fs::path(env.home) / ".cache" / "huggingface" / "hub", "the default ~/.cache/huggingface/hub",
             std::nullopt};
  }
  if (env.transformers_cache) {
    const fs::path transformers = expand_user(*env.transformers_cache, env.home);
    if (transformers.lexically_normal() != cache.path.lexically_normal())
      cache.transformers_cache = transformers;
  }
  return cache;
}

bool is_hub_repo_id(std::string_view text) {
  if (text.empty() || text.size() > 96 || text.find("--") != std::string_view::npos ||
      text.find("..") != std::string_view::npos || text.ends_with(".git")) {
    return false;
  }
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  const auto valid_part = [&](std::string_view part) {
    return !part.empty() && word(part.front()) && word(part.back()) &&
           std::all_of(part.begin(), part.end(), [&](char c) { return word(c) || c == '-' || c == '.'; });
  };
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) return valid_part(text);
  return valid_part(text.substr(0, slash)) && valid_part(text.substr(slash + 1));
}

std::vector<std::string> hub_repo_candidates(std::string_view repo_id, HubRepoType type) {
  std::vector<std::string> candidates{std::string(repo_id)};
  if (auto other = other_name(repo_id, type)) candidates.push_back(std::move(*other));
  return candidates;
}

std::string hub_download_command(std::string_view repo_id, HubRepoType type, const HubLookup& lookup) {
  return download_command(repo_id, type, lookup.revision, hub_cache_dir(lookup.cache_dir));
}

std::optional<HubSnapshot> find_hub_snapshot(std::string_view repo_id, HubRepoType type,
                                             const HubLookup& lookup) {
  return search_snapshot(repo_id, type, lookup).snapshot;
}

HubSnapshot resolve_hub_snapshot(std::string_view repo_id, HubRepoType type, const HubLookup& lookup) {
  SnapshotSearch search = search_snapshot(repo_id, type, lookup);
  if (search.snapshot) {
    if (type == HubRepoType::model) check_links(*search.snapshot);
    return std::move(*search.snapshot);
  }
  if (!search.problems.empty()) {
    fail_input("{} {}: {}. shmtrain never downloads; fill the cache with `{}`", type_word(type), repo_id,
               fmt::join(search.problems, "; "), search.command);
  }
  std::vector<std::string> tried;
  for (const fs::path& folder : search.tried) tried.push_back(folder.string());
  std::string hint;
  if (search.cache.transformers_cache) {
    hint = fmt::format(" ($TRANSFORMERS_CACHE is {}: where transformers downloaded it, pass --cache_dir {})",
                       search.cache.transformers_cache->string(), search.cache.transformers_cache->string());
  }
  fail_input(
      "{} {} is not in the Hugging Face cache {} ({}): looked for {}. shmtrain never downloads; fill the "
      "cache with `{}`{}",
      type_word(type), repo_id, search.cache.path.string(), search.cache.origin, fmt::join(tried, " and "),
      search.command, hint);
}

std::optional<fs::path> find_hub_snapshot_file(const HubSnapshot& snapshot, std::string_view file) {
  const fs::path relative{std::string(file)};
  bool ok = !file.empty() && relative.is_relative();
  for (const auto& part : relative) ok = ok && part != "..";
  if (!ok) fail_input("'{}' is not a file name inside a Hub repo", file);
  const fs::path path = snapshot.folder / relative;
  std::error_code error;
  const fs::file_status link = fs::symlink_status(path, error);
  if (!fs::exists(link)) return std::nullopt;
  if (fs::is_symlink(link) && !fs::exists(path, error)) fail_broken_link(path, snapshot.download_command);
  if (fs::is_directory(path, error)) fail_input("{} is a folder, not a file", path.string());
  return path;
}

fs::path hub_snapshot_file(const HubSnapshot& snapshot, std::string_view file) {
  if (auto path = find_hub_snapshot_file(snapshot, file)) return *path;
  const fs::path repo = snapshot.folder.parent_path().parent_path();
  const fs::path marker = repo / ".no_exist" / snapshot.commit / std::string(file);
  std::error_code error;
  if (fs::exists(fs::symlink_status(marker, error))) {
    fail_input("{} {} has no {} at commit {} (huggingface_hub found none and noted it in {})",
               type_word(snapshot.type), snapshot.repo_id, file, snapshot.commit, marker.string());
  }
  fail_input("{} is not in the cached snapshot {} ({} {} at {}): fill the cache with `{}`", file,
             snapshot.folder.string(), type_word(snapshot.type), snapshot.repo_id, snapshot.revision,
             snapshot.download_command);
}

}  // namespace shmtrain::io
