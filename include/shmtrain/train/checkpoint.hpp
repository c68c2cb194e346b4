#pragma once
// A checkpoint folder, output_dir/checkpoint-<step>/, written whole or not at all
// (io/atomic_folder.hpp): the model folder's files (Hugging Face loads a checkpoint like a
// model), optimizer.safetensors (AdamW's moments and step) and trainer_state.json (the step,
// the data position, the log history). Resuming from it continues the run exactly: the same
// losses as a run that never stopped.
#include <filesystem>
#include <span>
#include <string>

#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"
#include "shmtrain/optim/adamw.hpp"
#include "shmtrain/text/tokenizer.hpp"
#include "shmtrain/train/trainer_state.hpp"

namespace shmtrain::train {

struct CheckpointView {
  const model::BertConfig& config;
  const model::ParamTable& table;
  std::span<const float> params;
  const optim::AdamWState& optimizer;
  const TrainerState& state;
  const text::Tokenizer& tokenizer;
  const std::string& options_toml;
};

// Writes output_dir/checkpoint-<state.global_step> and returns its path.
std::filesystem::path save_checkpoint(const std::filesystem::path& output_dir, const CheckpointView& checkpoint);

// Reads a checkpoint into params (table.count() floats) and `optimizer` (filled whole);
// returns its trainer state. Throws InputError naming the file when a part is missing or does
// not fit the model: another architecture or size (config.json compared with `config`), or
// another vocabulary (the checkpoint's tokenizer files compared with `tokenizer`, token by token).
TrainerState load_checkpoint(const std::filesystem::path& folder, const model::BertConfig& config,
                             const model::ParamTable& table, std::span<float> params,
                             optim::AdamWState& optimizer, const text::Tokenizer& tokenizer);

}  // namespace shmtrain::train
