#pragma once
// Everything a run reads before it trains: the model's config.json (with the run's labels and
// dropout overrides applied), where its weights come from, the tokenizer, and the data.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "shmtrain/task/task.hpp"
#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/text/tokenizer.hpp"
#include "shmtrain/train/train_options.hpp"

namespace shmtrain::train {

struct RunInputs {
  model::BertConfig config;
  std::filesystem::path weights;  // model.safetensors to load; empty: random initialisation
  std::filesystem::path config_source;
  std::shared_ptr<const text::Tokenizer> tokenizer;  // never null
  std::shared_ptr<const task::Task> task;  // the data and what it means; shared by forked workers
  // --max_seq_length, clamped to what the model's positions hold (run_glue's warning is in notes).
  std::int64_t max_seq_length = 128;
  std::vector<std::string> notes;  // lines for the run's log
};

// Throws InputError naming the file, flag or key: a missing model folder or file, a model
// folder with only pytorch_model.bin, and every
// error of the tokenizer and data readers.
RunInputs load_run_inputs(const TrainOptions& options);

}  // namespace shmtrain::train
