#pragma once
// What a pasted Hugging Face command names by Hub id, found in the local
// Hugging Face cache (io/hub_cache.hpp) as the scripts' from_pretrained and load_dataset
// would find it offline. Nothing is downloaded.
#include <optional>
#include <string>

#include "shmtrain/task/task.hpp"
#include "shmtrain/train/train_options.hpp"

namespace shmtrain::train {

// The options with model_name_or_path, config_name and tokenizer_name that are no existing
// path but a Hub id replaced by the snapshot folder of model_revision in the cache
// (cache_dir, else the environment's). Throws InputError for an id the cache lacks, naming
// every folder tried and the download command.
TrainOptions with_local_model_paths(const TrainOptions& options);

// The data of --dataset_name (or of run_glue's --task_name without --data_dir or files: GLUE
// from nyu-mll/glue), and the task it is read as.
struct HubDataset {
  std::string task_name;  // squad, a GLUE task, ner; "" for a classification dataset of text columns
  task::DatasetSplits splits;
};

// The task --dataset_name is read as when --task_name is not given: squad for rajpurkar/squad
// and squad_v2, the GLUE task for nyu-mll/glue, ner for conll2003; "" for others (a
// classification dataset of text columns). Throws InputError for a name that is no dataset id.
std::string dataset_task_name(const std::string& dataset_name, const std::string& config_name);

// nullopt when the run reads files. Resolves the splits the run needs (train for do_train,
// validation for do_eval, test for do_predict). Throws InputError: a dataset, config or split
// the cache lacks, --dataset_name together with data files.
std::optional<HubDataset> resolve_hub_dataset(const TrainOptions& options);

// --ir_eval_dir naming no folder here but a Hub dataset id: its corpus, queries and qrels
// configs' train split in the cache (NanoBEIR's layout). nullopt for a folder, an empty flag,
// or a run that does not evaluate. Throws InputError for a dataset or config the cache lacks.
std::optional<task::RetrievalHub> resolve_retrieval_hub(const TrainOptions& options);

}  // namespace shmtrain::train
