#include "shmtrain/model/model_weights.hpp"

#include <fmt/format.h>

#include <set>

#include "architectures/architecture.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "shmtrain/io/torch_checkpoint.hpp"
#include "shmtrain/model/init.hpp"

namespace shmtrain::model {
namespace {

// The names a checkpoint may use for the table's `name`, in order of preference.
// A base-model checkpoint (BertModel, DistilBertModel) names the encoder's tensors without the
// family's prefix; old checkpoints call LayerNorm's weight and bias gamma and beta.
std::vector<std::string> candidate_names(const std::string& name, std::string_view base_prefix) {
  std::vector<std::string> names = {name};
  if (name.starts_with(base_prefix)) names.push_back(name.substr(base_prefix.size()));
  const std::size_t n = names.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::string s = names[i];  // a copy: push_back below may reallocate
    if (s.find("LayerNorm") == std::string::npos) continue;
    if (s.ends_with(".weight")) names.push_back(s.substr(0, s.size() - 7) + ".gamma");
    if (s.ends_with(".bias")) names.push_back(s.substr(0, s.size() - 5) + ".beta");
  }
  return names;
}

// The task heads' tensors, which a base or pre-training checkpoint lacks. BERT's pooler is
// part of BertModel (its checkpoints have it); DistilBERT's pre_classifier and ModernBERT's
// head.dense and head.norm (which its MLM checkpoints carry, and ModernBertModel's lack) are the
// head's.
bool is_head(const std::string& name, const Architecture& arch) {
  if (name.starts_with("classifier.") || name.starts_with("qa_outputs.")) return true;
  // A base checkpoint lacks the masked-LM transform and bias (BertForMaskedLM initialises them),
  // and RoBERTa's MLM checkpoints the pooler its multiple-choice head uses.
  const auto module = [&](const char* m) { return m != nullptr && name.starts_with(std::string(m) + "."); };
  if (module(arch.masked_lm.dense) || module(arch.masked_lm.norm)) return true;
  if (arch.masked_lm.bias != nullptr && name == arch.masked_lm.bias) return true;
  if (module(arch.choice_pooler)) return true;
  if (!arch.pooler_is_head) return false;
  return name.starts_with(std::string(arch.pooler) + ".") ||
         (arch.pooler_norm != nullptr && name.starts_with(std::string(arch.pooler_norm) + "."));
}

}  // namespace

namespace {

// The loading over either reader (safetensors or a torch checkpoint): find(name) gives the
// tensor's name and shape, load(name, span) its floats.
template <typename Reader>
WeightsLoadReport load_from(const Reader& reader, const std::filesystem::path& path, const ParamTable& table,
                            std::span<float> params, const BertConfig& config, std::uint64_t init_seed) {
  const Architecture& arch = architecture_of(config);
  WeightsLoadReport report;
  std::set<std::string> used;
  for (const ParamEntry& entry : table.entries()) {
    const auto* info = decltype(reader.find(std::string_view())){nullptr};
    for (const std::string& candidate : candidate_names(entry.name, arch.base_prefix)) {
      info = reader.find(candidate);
      if (info != nullptr) break;
    }
    if (info == nullptr) {
      if (!is_head(entry.name, arch)) {
        fail_input(
            "{}: tensor '{}' is missing; is this a {} checkpoint of the same architecture as config.json?",
            path.string(), entry.name, arch.display_name);
      }
      init_parameter(entry, params, config, init_seed);
      report.initialized.push_back(entry.name);
      continue;
    }
    if (info->shape != entry.shape) {
      fail_input("{}: tensor '{}' has shape {} but config.json implies {}", path.string(), info->name,
                 io::format_shape(info->shape), io::format_shape(entry.shape));
    }
    reader.load(info->name,
                params.subspan(static_cast<std::size_t>(entry.offset), static_cast<std::size_t>(entry.size)));
    used.insert(info->name);
  }
  for (const auto& t : reader.tensors()) {
    if (!used.contains(t.name)) report.unused.push_back(t.name);
  }
  return report;
}

}  // namespace

std::filesystem::path find_model_weights(const std::filesystem::path& folder) {
  for (const char* name : {"model.safetensors", "pytorch_model.bin.index.json", "pytorch_model.bin"}) {
    std::error_code error;
    if (std::filesystem::is_regular_file(folder / name, error)) return folder / name;
  }
  if (std::error_code error; std::filesystem::is_regular_file(folder / "model.safetensors.index.json", error)) {
    fail_input("{}: holds sharded safetensors (model.safetensors.index.json), which shmtrain does not read yet; "
               "save the model unsharded (save_pretrained(dir, max_shard_size=\"100GB\"))",
               folder.string());
  }
  return {};
}

WeightsLoadReport load_model_weights(const std::filesystem::path& path, const ParamTable& table,
                                     std::span<float> params, const BertConfig& config,
                                     std::uint64_t init_seed) {
  const std::string name = path.filename().string();
  if (name.ends_with(".bin") || name.ends_with(".bin.index.json")) {
    return load_from(io::TorchCheckpointReader(path), path, table, params, config, init_seed);
  }
  return load_from(io::SafetensorsReader(path), path, table, params, config, init_seed);
}

void save_model_weights(const std::filesystem::path& path, const ParamTable& table,
                        std::span<const float> params) {
  std::vector<io::TensorToWrite> tensors;
  tensors.reserve(table.entries().size());
  for (const ParamEntry& e : table.entries()) {
    tensors.push_back({e.name, e.shape,
                       params.subspan(static_cast<std::size_t>(e.offset), static_cast<std::size_t>(e.size))});
  }
  io::write_safetensors(path, tensors);
}

}  // namespace shmtrain::model
