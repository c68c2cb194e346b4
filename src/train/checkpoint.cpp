#include "shmtrain/train/checkpoint.hpp"

#include <system_error>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/io/atomic_folder.hpp"
#include "shmtrain/model/model_weights.hpp"
#include "shmtrain/optim/optimizer_state.hpp"
#include "shmtrain/train/optimizer_slots.hpp"
#include "shmtrain/train/output_dir.hpp"

namespace shmtrain::train {

std::filesystem::path save_checkpoint(const std::filesystem::path& output_dir, const CheckpointView& checkpoint) {
  const std::filesystem::path target = output_dir / fmt::format("checkpoint-{}", checkpoint.state.global_step);
  io::AtomicFolder folder(target);
  write_model_folder(folder.temp_path(), checkpoint.config, checkpoint.table, checkpoint.params, checkpoint.tokenizer,
                     checkpoint.options_toml);
  optim::save_optimizer_state(folder.temp_path() / "optimizer.safetensors", optimizer_slots(checkpoint.table),
                              checkpoint.optimizer.exp_avg, checkpoint.optimizer.exp_avg_sq,
                              checkpoint.optimizer.step);
  io::write_file_atomically(folder.temp_path() / "trainer_state.json", checkpoint.state.to_json().dump(2) + "\n");
  folder.commit();
  return target;
}

TrainerState load_checkpoint(const std::filesystem::path& folder, const model::BertConfig& config,
                             const model::ParamTable& table, std::span<float> params,
                             optim::AdamWState& optimizer) {
  for (const char* name : {"model.safetensors", "optimizer.safetensors", "trainer_state.json"}) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(folder / name, error)) {
      fail_input("{}: {} not found; resume_from_checkpoint needs a checkpoint folder written by shmtrain train",
                 folder.string(), name);
    }
  }
  TrainerState state = TrainerState::read(folder / "trainer_state.json");
  const model::WeightsLoadReport report =
      model::load_model_weights(folder / "model.safetensors", table, params, config, 0);
  if (!report.initialized.empty()) {
    fail_input("{}: model.safetensors lacks {} (a checkpoint holds every weight)", folder.string(),
               report.initialized.front());
  }
  optimizer.exp_avg.assign(static_cast<std::size_t>(table.count()), 0.0f);
  optimizer.exp_avg_sq.assign(static_cast<std::size_t>(table.count()), 0.0f);
  const std::int64_t step = optim::load_optimizer_state(
      folder / "optimizer.safetensors", optimizer_slots(table), optimizer.exp_avg, optimizer.exp_avg_sq);
  if (step != state.global_step) {
    fail_input("{}: optimizer.safetensors is at step {} but trainer_state.json at step {}", folder.string(), step,
               state.global_step);
  }
  optimizer.step = step;
  return state;
}

}  // namespace shmtrain::train
