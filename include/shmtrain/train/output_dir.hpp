#pragma once
// The run's output folder: what it may already hold, its checkpoint-N sub-folders, and the
// files of a model folder that Hugging Face's from_pretrained loads.
//
// As run_glue.py: an output_dir that holds checkpoints but no finished model is an
// interrupted run, and training resumes from its last checkpoint; one that holds anything
// else is refused unless overwrite_output_dir, which removes the files shmtrain writes
// there (checkpoints, model, metrics) and leaves any others alone.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"
#include "shmtrain/text/tokenizer.hpp"
#include "shmtrain/train/train_options.hpp"

namespace shmtrain::train {

// "checkpoint-<step>" folders of `output_dir`, oldest (lowest step) first.
std::vector<std::filesystem::path> list_checkpoints(const std::filesystem::path& output_dir);

// Creates output_dir when needed, locks it for this run (another run's prepare_output_dir on it
// is an InputError until this process and its workers exit), and decides where training starts: the returned path is the
// checkpoint to resume from (options.resume_from_checkpoint, or the last one of an
// interrupted run), empty for a fresh start. `notes` receives what was decided, for the log.
// Throws InputError when output_dir holds another run and overwrite_output_dir is false.
std::filesystem::path prepare_output_dir(const TrainOptions& options, std::vector<std::string>& notes);

// --max_restarts, after a failed attempt of this run (output_dir prepared and locked by it):
// the checkpoint to go on from, the last one written; without one, the attempt's files are
// removed and the run starts as it first did (from resume_from_checkpoint, if given).
std::filesystem::path prepare_restart(const TrainOptions& options, std::vector<std::string>& notes);

// Removes the oldest checkpoints beyond `limit`.
// `keep` (when not empty, a checkpoint counted in the limit) is never removed: the best model.
void rotate_checkpoints(const std::filesystem::path& output_dir, std::int64_t limit,
                        const std::filesystem::path& keep = {});

// Writes model.safetensors, config.json, the tokenizer files and shmtrain_config.toml (the
// resolved options) into `folder`, each atomically.
void write_model_folder(const std::filesystem::path& folder, const model::BertConfig& config,
                        const model::ParamTable& table, std::span<const float> params,
                        const text::Tokenizer& tokenizer, const std::string& options_toml);

}  // namespace shmtrain::train
