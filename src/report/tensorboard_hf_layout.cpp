// Where and under which tags Hugging Face's Trainer puts its TensorBoard scalars: the logging
// folder is TrainingArguments.logging_dir's default (training_args.py, default_logdir), the
// tags are transformers.integrations.rewrite_logs' and TensorBoardCallback.on_log writes
// every int or float value with add_scalar at state.global_step.
#include <array>
#include <cstdlib>

#include "host_name.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/report/tensorboard.hpp"

namespace shmtrain::report {

std::string hf_run_name(const std::tm& local_time, std::string_view hostname) {
  // %b in the C locale; spelled out so that a locale set by anyone else cannot change it.
  static constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const auto month = static_cast<std::size_t>(local_time.tm_mon);
  return fmt::format("{}{:02d}_{:02d}-{:02d}-{:02d}_{}", month < kMonths.size() ? kMonths[month] : "?",
                     local_time.tm_mday, local_time.tm_hour, local_time.tm_min, local_time.tm_sec, hostname);
}

std::filesystem::path default_tensorboard_dir(const std::filesystem::path& output_dir,
                                              std::chrono::system_clock::time_point now) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm local_time{};
  if (::localtime_r(&seconds, &local_time) == nullptr) throw_errno("localtime_r");
  return output_dir / "runs" / hf_run_name(local_time, host_name());
}

std::filesystem::path tensorboard_dir(const std::filesystem::path& logging_dir, const std::filesystem::path& output_dir) {
  if (!logging_dir.empty()) return logging_dir;
  if (const char* variable = std::getenv("TENSORBOARD_LOGGING_DIR"); variable != nullptr && *variable != '\0') {
    return variable;
  }
  return default_tensorboard_dir(output_dir);
}

std::string hf_tensorboard_tag(std::string_view key) {
  for (const std::string_view split : {"eval", "test"}) {
    if (key.size() > split.size() && key.starts_with(split) && key[split.size()] == '_') {
      return fmt::format("{}/{}", split, key.substr(split.size() + 1));
    }
  }
  return fmt::format("train/{}", key);
}

void write_log_record(TensorBoardWriter& writer, const nlohmann::ordered_json& record, double wall_time) {
  if (!record.is_object()) fail_input("a metrics record must be a JSON object, not {}", record.type_name());
  const auto step = record.find("step");
  if (step == record.end() || !step->is_number_integer()) {
    fail_input("metrics record {} has no integer \"step\" to put its TensorBoard scalars at", record.dump());
  }
  for (const auto& [key, value] : record.items()) {
    if (key == "step") continue;
    if (value.is_boolean()) {
      writer.add_scalar(hf_tensorboard_tag(key), step->get<std::int64_t>(), value.get<bool>() ? 1.0 : 0.0,
                        wall_time);
    } else if (value.is_number()) {
      writer.add_scalar(hf_tensorboard_tag(key), step->get<std::int64_t>(), value.get<double>(), wall_time);
    }
  }
}

}  // namespace shmtrain::report
