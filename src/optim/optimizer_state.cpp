#include "shmtrain/optim/optimizer_state.hpp"

#include <charconv>
#include <map>
#include <string>
#include <vector>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/safetensors.hpp"

namespace shmtrain::optim {
namespace {

constexpr const char* kStepKey = "step";

}  // namespace

void save_optimizer_state(const std::filesystem::path& path, std::span<const ParamSlot> slots,
                          std::span<const float> exp_avg, std::span<const float> exp_avg_sq,
                          std::int64_t step) {
  std::vector<io::TensorToWrite> tensors;
  tensors.reserve(2 * slots.size());
  for (const char* moment : {"exp_avg", "exp_avg_sq"}) {
    const std::span<const float> arena = std::string_view(moment) == "exp_avg" ? exp_avg : exp_avg_sq;
    for (const ParamSlot& entry : slots) {
      tensors.push_back(
          {std::string(moment) + "." + entry.name, entry.shape,
           arena.subspan(static_cast<std::size_t>(entry.offset), static_cast<std::size_t>(entry.size))});
    }
  }
  io::write_safetensors(path, tensors, {{"format", "shmtrain-adamw"}, {kStepKey, std::to_string(step)}});
}

std::int64_t load_optimizer_state(const std::filesystem::path& path, std::span<const ParamSlot> slots,
                                  std::span<float> exp_avg, std::span<float> exp_avg_sq) {
  const io::SafetensorsReader reader(path);
  for (const char* moment : {"exp_avg", "exp_avg_sq"}) {
    const std::span<float> arena = std::string_view(moment) == "exp_avg" ? exp_avg : exp_avg_sq;
    for (const ParamSlot& entry : slots) {
      const std::string name = std::string(moment) + "." + entry.name;
      const io::TensorInfo& info = reader.info(name);
      if (info.shape != entry.shape) {
        fail_input("{}: tensor {} has shape {}, the model needs {}", path.string(), name,
                   io::format_shape(info.shape), io::format_shape(entry.shape));
      }
      reader.load(
          name, arena.subspan(static_cast<std::size_t>(entry.offset), static_cast<std::size_t>(entry.size)));
    }
  }
  const auto it = reader.metadata().find(kStepKey);
  std::int64_t step = -1;
  if (it != reader.metadata().end()) {
    const std::string& text = it->second;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), step);
    if (error != std::errc{} || end != text.data() + text.size()) step = -1;
  }
  if (step < 0)
    fail_input("{}: metadata has no valid \"{}\" (the optimizer's step count)", path.string(), kStepKey);
  return step;
}

}  // namespace shmtrain::optim
