#pragma once
// Hugging Face weights <-> the parameter arena. Loading maps every ParamTable entry to the
// tensor of the same name in model.safetensors (or pytorch_model.bin) (also accepting a BertModel / DistilBertModel
// checkpoint's names without the "bert." / "distilbert." prefix, and the old LayerNorm
// gamma/beta names, as transformers does); saving writes the arena back under HF's names.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"

namespace shmtrain::model {

struct WeightsLoadReport {
  std::vector<std::string> initialized;  // absent from the file: newly initialised (the head)
  std::vector<std::string> unused;       // in the file, not in the model (pre-training heads, ...)
};

// Loads `path` (model.safetensors, or a torch checkpoint: pytorch_model.bin or its shards'
// index, io/torch_checkpoint.hpp) into params. Tensors of the task head (classifier, DistilBERT's
// pre_classifier, qa_outputs; BERT's pooler is not: it is part of BertModel) that the file
// lacks are initialised as HF does and listed in the report; any
// other missing tensor, or a tensor whose shape disagrees with the table (from config.json),
// is an InputError naming the tensor and both shapes.
WeightsLoadReport load_model_weights(const std::filesystem::path& path, const ParamTable& table,
                                     std::span<float> params, const BertConfig& config, std::uint64_t init_seed);

// The weights file of a model folder: model.safetensors, else pytorch_model.bin.index.json (a
// sharded torch checkpoint), else pytorch_model.bin; empty when it has none. InputError for
// sharded safetensors (model.safetensors.index.json), which are not read.
std::filesystem::path find_model_weights(const std::filesystem::path& folder);

// Writes every table entry as an F32 tensor (atomically).
void save_model_weights(const std::filesystem::path& path, const ParamTable& table, std::span<const float> params);

}  // namespace shmtrain::model
