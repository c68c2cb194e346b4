#include "shmtrain/train/trainer_state.hpp"

#include <fstream>
#include <sstream>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/json_nesting.hpp"

namespace shmtrain::train {
namespace {

template <typename T>
T get(const nlohmann::json& object, const char* key, const std::string& source) {
  const auto it = object.find(key);
  if (it == object.end()) fail_input("{}: key \"{}\" is missing", source, key);
  try {
    return it->get<T>();
  } catch (const nlohmann::json::exception&) {
    fail_input("{}: key \"{}\" has the wrong type ({})", source, key, it->type_name());
  }
}

}  // namespace

double TrainerState::epoch() const {
  if (batches_per_epoch <= 0) return static_cast<double>(epoch_index);
  return static_cast<double>(epoch_index) +
         static_cast<double>(batches_done) / static_cast<double>(batches_per_epoch);
}

nlohmann::ordered_json TrainerState::to_json() const {
  nlohmann::ordered_json json;
  json["best_metric"] = best_metric ? nlohmann::ordered_json(*best_metric) : nlohmann::ordered_json(nullptr);
  json["best_model_checkpoint"] =
      best_model_checkpoint.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(best_model_checkpoint);
  json["epoch"] = epoch();
  json["global_step"] = global_step;
  json["is_hyper_param_search"] = false;
  json["is_local_process_zero"] = true;
  json["is_world_process_zero"] = true;
  json["log_history"] = log_history;
  json["max_steps"] = max_steps;
  json["num_train_epochs"] = num_train_epochs;
  json["total_flos"] = 0;
  json["train_batch_size"] = global_batch_size;
  json["trial_name"] = nullptr;
  json["trial_params"] = nullptr;
  nlohmann::ordered_json own;
  own["epoch_index"] = epoch_index;
  own["batches_done"] = batches_done;
  own["batches_per_epoch"] = batches_per_epoch;
  own["seed"] = seed;
  own["world_size"] = world_size;
  own["window_loss_sum"] = window_loss_sum;
  own["window_steps"] = window_steps;
  json["shmtrain"] = own;
  return json;
}

TrainerState TrainerState::from_json(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object()) fail_input("{}: expected a JSON object", source);
  TrainerState state;
  state.global_step = get<std::int64_t>(json, "global_step", source);
  state.max_steps = get<std::int64_t>(json, "max_steps", source);
  state.num_train_epochs = get<double>(json, "num_train_epochs", source);
  state.global_batch_size = get<std::int64_t>(json, "train_batch_size", source);
  const auto history = json.find("log_history");
  if (history != json.end() && history->is_array()) state.log_history = *history;
  if (const auto best = json.find("best_metric"); best != json.end() && best->is_number()) state.best_metric = best->get<double>();
  if (const auto best = json.find("best_model_checkpoint"); best != json.end() && best->is_string()) {
    state.best_model_checkpoint = best->get<std::string>();
  }
  const auto own = json.find("shmtrain");
  if (own == json.end() || !own->is_object()) {
    fail_input("{}: no \"shmtrain\" section: this checkpoint was not written by shmtrain train", source);
  }
  const std::string section = source + " (shmtrain)";
  state.epoch_index = get<std::int64_t>(*own, "epoch_index", section);
  state.batches_done = get<std::int64_t>(*own, "batches_done", section);
  state.batches_per_epoch = get<std::int64_t>(*own, "batches_per_epoch", section);
  state.seed = get<std::uint64_t>(*own, "seed", section);
  state.world_size = get<std::int64_t>(*own, "world_size", section);
  state.window_loss_sum = get<double>(*own, "window_loss_sum", section);
  state.window_steps = get<std::int64_t>(*own, "window_steps", section);
  if (state.global_step < 0 || state.epoch_index < 0 || state.batches_done < 0 || state.window_steps < 0) {
    fail_input("{}: negative step or position", source);
  }
  return state;
}

TrainerState TrainerState::read(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) fail_input("{}: not found or unreadable", path.string());
  std::stringstream text;
  text << in.rdbuf();
  io::check_json_nesting(text.str(), path.string());
  const nlohmann::json json = nlohmann::json::parse(text.str(), nullptr, false);
  if (json.is_discarded()) fail_input("{}: not valid JSON", path.string());
  return from_json(json, path.string());
}

}  // namespace shmtrain::train
