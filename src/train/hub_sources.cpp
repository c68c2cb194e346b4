#include "shmtrain/train/hub_sources.hpp"

#include <algorithm>
#include <system_error>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/hub_cache.hpp"
#include "shmtrain/task/task.hpp"

namespace shmtrain::train {
namespace {

namespace fs = std::filesystem;

io::HubLookup lookup_of(const TrainOptions& options, const std::string& revision) {
  io::HubLookup lookup;
  if (!options.cache_dir.empty()) lookup.cache_dir = options.cache_dir;
  lookup.revision = revision;
  return lookup;
}

// An existing path stays; a Hub id becomes its snapshot folder.
fs::path local_path(const fs::path& given, const char* key, const TrainOptions& options) {
  std::error_code error;
  if (given.empty() || fs::exists(given, error)) return given;
  const std::string text = given.string();
  if (!io::is_hub_repo_id(text)) return given;  // the reader's "no such file" says what is wrong
  try {
    return io::resolve_hub_snapshot(text, io::HubRepoType::model, lookup_of(options, options.model_revision)).folder;
  } catch (const InputError& e) {
    fail_input("{} {}: no such folder here, and not in the local Hugging Face cache: {}", key, text, e.what());
  }
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
  return text;
}

std::string task_of(const io::DatasetName& name) {
  if (name.repo_id == "rajpurkar/squad" || name.repo_id == "rajpurkar/squad_v2") return "squad";
  if (name.repo_id == "nyu-mll/glue") return name.config;
  if (name.repo_id == "eriktks/conll2003") return "ner";
  if (name.repo_id == "Salesforce/wikitext") return "mlm";
  if (name.repo_id == "allenai/swag") return "swag";
  return "";
}

}  // namespace

std::string dataset_task_name(const std::string& dataset_name, const std::string& config_name) {
  return task_of(io::canonical_dataset(dataset_name, config_name));
}

TrainOptions with_local_model_paths(const TrainOptions& options) {
  TrainOptions local = options;
  local.model_name_or_path = local_path(options.model_name_or_path, "model_name_or_path", options);
  local.config_name = local_path(options.config_name, "config_name", options);
  local.tokenizer_name = local_path(options.tokenizer_name, "tokenizer_name", options);
  return local;
}

std::optional<HubDataset> resolve_hub_dataset(const TrainOptions& options) {
  const bool files = !options.data_dir.empty() || !options.train_file.empty() || !options.validation_file.empty();
  std::string dataset_name = options.dataset_name;
  std::string config_name = options.dataset_config_name;
  if (dataset_name.empty() && options.multiple_choice() && !files && options.test_file.empty()) {
    dataset_name = "swag";  // run_swag.py without files: load_dataset("swag", "regular")
  } else if (dataset_name.empty()) {
    // run_glue.py: --task_name without files loads load_dataset("nyu-mll/glue", task_name).
    const std::string task = lower(options.task_name);
    const std::vector<std::string>& glue = task::glue_task_names();
    if (files || std::find(glue.begin(), glue.end(), task) == glue.end()) return std::nullopt;
    dataset_name = "nyu-mll/glue";
    config_name = task;
  } else if (files) {
    fail_input("--dataset_name {} and data files (--data_dir, --train_file, --validation_file) were both given: "
               "pass one of them",
               dataset_name);
  }
  const io::DatasetName name = io::canonical_dataset(dataset_name, config_name);
  const io::HubLookup lookup = lookup_of(options, "main");
  HubDataset out;
  out.task_name = options.task_name.empty() ? task_of(name) : options.task_name;
  out.splits.name = name.config.empty() ? name.repo_id : fmt::format("{} ({})", name.repo_id, name.config);
  const bool mnli = lower(out.task_name) == "mnli";
  if (options.do_train) out.splits.train = io::resolve_dataset_split(name, "train", lookup);
  if (options.do_eval && lower(out.task_name) == "mlm") {
    // run_mlm: a dataset without a validation split evaluates on train[:validation_split_percentage%].
    try {
      out.splits.validation = io::resolve_dataset_split(name, "validation", lookup);
    } catch (const InputError&) {
      if (out.splits.train.empty()) out.splits.train = io::resolve_dataset_split(name, "train", lookup);
    }
  } else if (options.do_eval && !mnli) {
    // A dataset without a `validation` split evaluates on its `dev` split (sentence-transformers'
    // datasets, all-nli among them, name it so); the error names the splits the cache has.
    std::string split = "validation";
    try {
      out.splits.validation = io::resolve_dataset_split(name, split, lookup);
    } catch (const InputError&) {
      const std::vector<std::string> cached = io::dataset_splits(name, lookup);
      if (std::find(cached.begin(), cached.end(), "dev") == cached.end()) throw;
      split = "dev";
      out.splits.validation = io::resolve_dataset_split(name, split, lookup);
    }
    out.splits.validation_name = name.repo_id.substr(name.repo_id.rfind('/') + 1) + "-" + split;
  } else if (options.do_eval) {
    out.splits.validation = io::resolve_dataset_split(name, "validation_matched", lookup);
    if (mnli) out.splits.validation_mismatched = io::resolve_dataset_split(name, "validation_mismatched", lookup);
  }
  if (options.do_predict && options.test_file.empty()) {
    out.splits.test = io::resolve_dataset_split(name, mnli ? "test_matched" : "test", lookup);
  }
  return out;
}

std::optional<task::RetrievalHub> resolve_retrieval_hub(const TrainOptions& options) {
  std::error_code error;
  const std::string id = options.ir_eval_dir.string();
  if (!options.do_eval || id.empty() || fs::exists(options.ir_eval_dir, error) || !io::is_hub_repo_id(id)) {
    return std::nullopt;
  }
  const io::HubLookup lookup = lookup_of(options, "main");
  task::RetrievalHub hub;
  hub.repo_id = id;
  try {
    hub.corpus = io::resolve_dataset_split(io::canonical_dataset(id, "corpus"), "train", lookup);
    hub.queries = io::resolve_dataset_split(io::canonical_dataset(id, "queries"), "train", lookup);
    hub.qrels = io::resolve_dataset_split(io::canonical_dataset(id, "qrels"), "train", lookup);
  } catch (const InputError& e) {
    fail_input("--ir_eval_dir {}: no such folder here, and no NanoBEIR-style dataset (configs corpus, queries, "
               "qrels) in the local Hugging Face cache: {}",
               id, e.what());
  }
  return hub;
}

}  // namespace shmtrain::train
