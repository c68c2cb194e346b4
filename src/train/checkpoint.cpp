#include "shmtrain/train/checkpoint.hpp"

#include <system_error>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/common/fault_injection.hpp"
#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/io/atomic_folder.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/optim/optimizer_state.hpp"
#include "shmtrain/train/optimizer_slots.hpp"
#include "shmtrain/text/tokenizer.hpp"
#include "shmtrain/train/output_dir.hpp"

namespace shmtrain::train {

std::filesystem::path save_checkpoint(const std::filesystem::path& output_dir,
                                      const CheckpointView& checkpoint) {
  const std::filesystem::path target =
      output_dir / fmt::format("checkpoint-{}", checkpoint.state.global_step);
  io::AtomicFolder folder(target);
  write_model_folder(folder.temp_path(), checkpoint.config, checkpoint.table, checkpoint.params,
                     checkpoint.tokenizer, checkpoint.options_toml);
  fault_point("save.model", 0);  // rank 0 saves
  optim::save_optimizer_state(folder.temp_path() / "optimizer.safetensors", optimizer_slots(checkpoint.table),
                              checkpoint.optimizer.exp_avg, checkpoint.optimizer.exp_avg_sq,
                              checkpoint.optimizer.step);
  fault_point("save.optimizer", 0);
  io::write_file_atomically(folder.temp_path() / "trainer_state.json",
                            checkpoint.state.to_json().dump(2) + "\n");
  fault_point("save.commit", 0);
  folder.commit();
  return target;
}

namespace {

// A checkpoint resumes only into the model it was written from: a 3-layer checkpoint resumed
// into a 2-layer run would otherwise load its first two layers and say nothing.
void check_same_model(const std::filesystem::path& folder, const model::BertConfig& run) {
  const std::filesystem::path path = folder / "config.json";
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return;  // older checkpoints: the weights decide
  const model::BertConfig saved = model::read_hf_config(path);
  const auto differs = [&](const char* key, const auto& theirs, const auto& ours) {
    if (theirs != ours) {
      fail_input(
          "{}: the checkpoint's {} is {} but this run's model has {}: resume a checkpoint of the same model",
          path.string(), key, theirs, ours);
    }
  };
  differs("model_type", saved.model_type, run.model_type);
  differs("vocab_size", saved.vocab_size, run.vocab_size);
  differs("hidden_size", saved.hidden_size, run.hidden_size);
  differs("num_hidden_layers", saved.num_hidden_layers, run.num_hidden_layers);
  differs("num_attention_heads", saved.num_attention_heads, run.num_attention_heads);
  differs("intermediate_size", saved.intermediate_size, run.intermediate_size);
  differs("max_position_embeddings", saved.max_position_embeddings, run.max_position_embeddings);
  differs("type_vocab_size", saved.type_vocab_size, run.type_vocab_size);
  differs("number of labels", saved.num_labels(), run.num_labels());
}

// The tokens a checkpoint's model learned are the ids of its tokenizer: resuming it with
// another vocabulary would train on shifted meanings without a word said.
void check_same_tokenizer(const std::filesystem::path& folder, const text::Tokenizer& run) {
  std::unique_ptr<text::Tokenizer> saved;
  try {
    saved = text::load_tokenizer(folder);
  } catch (const InputError&) {
    return;  // a checkpoint without tokenizer files (older ones): the weights decide
  }
  if (saved->vocab_size() != run.vocab_size()) {
    fail_input("{}: the checkpoint's tokenizer has {} tokens but this run's ({}) has {}: resume with the tokenizer "
               "it was trained with",
               folder.string(), saved->vocab_size(), run.source(), run.vocab_size());
  }
  std::vector<std::int32_t> ids(run.vocab_size());
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int32_t>(i);
  const std::vector<std::string> theirs = saved->tokens(ids);
  const std::vector<std::string> ours = run.tokens(ids);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (theirs[i] != ours[i]) {
      fail_input("{}: the checkpoint's tokenizer has token '{}' at id {} but this run's ({}) has '{}': resume with "
                 "the tokenizer it was trained with",
                 folder.string(), theirs[i], i, run.source(), ours[i]);
    }
  }
  if (saved->pad_id() != run.pad_id()) {
    fail_input("{}: the checkpoint's tokenizer pads with id {} but this run's ({}) with {}", folder.string(),
               saved->pad_id(), run.source(), run.pad_id());
  }
}

}  // namespace

TrainerState load_checkpoint(const std::filesystem::path& folder, const model::BertConfig& config,
                             const model::ParamTable& table, std::span<float> params,
                             optim::AdamWState& optimizer, const text::Tokenizer& tokenizer) {
  for (const char* name : {"model.safetensors", "optimizer.safetensors", "trainer_state.json"}) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(folder / name, error)) {
      fail_input(
          "{}: {} not found; resume_from_checkpoint needs a checkpoint folder written by shmtrain train",
          folder.string(), name);
    }
  }
  check_same_model(folder, config);
  check_same_tokenizer(folder, tokenizer);
  TrainerState state = TrainerState::read(folder / "trainer_state.json");
  const model::WeightsLoadReport report =
      model::load_model_weights(folder / "model.safetensors", table, params, config, 0);
  if (!report.initialized.empty()) {
    fail_input("{}: model.safetensors lacks {} (a checkpoint holds every weight)", folder.string(),
               report.initialized.front());
  }
  if (!report.unused.empty()) {
    fail_input(
        "{}: model.safetensors holds {} tensor(s) this run's model does not have, {} first: the checkpoint "
        "is of another model",
        folder.string(), report.unused.size(), report.unused.front());
  }
  optimizer.exp_avg.assign(static_cast<std::size_t>(table.count()), 0.0f);
  optimizer.exp_avg_sq.assign(static_cast<std::size_t>(table.count()), 0.0f);
  const std::int64_t step = optim::load_optimizer_state(
      folder / "optimizer.safetensors", optimizer_slots(table), optimizer.exp_avg, optimizer.exp_avg_sq);
  if (step != state.global_step) {
    fail_input("{}: optimizer.safetensors is at step {} but trainer_state.json at step {}", folder.string(),
               step, state.global_step);
  }
  optimizer.step = step;
  return state;
}

}  // namespace shmtrain::train
