#include "shmtrain/model/param_table.hpp"

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain {
namespace {
constexpr std::int64_t kAlignFloats = 16;  // 64 bytes
constexpr int kMaxWorkers = 64;
}  // namespace

bool hf_decays(std::string_view name) {
  return !name.ends_with("bias") && name.find("LayerNorm") == std::string_view::npos;
}

void ParamTable::add(std::string name, std::vector<std::int64_t> shape, bool align) {
  if (align) count_ = (count_ + kAlignFloats - 1) / kAlignFloats * kAlignFloats;
  std::int64_t size = 1;
  for (std::int64_t d : shape) size *= d;
  const bool decay = hf_decays(name);
  entries_.push_back({std::move(name), std::move(shape), count_, size, decay});
  count_ += size;
}

ParamTable ParamTable::for_sequence_classification(const BertConfig& c) {
  ParamTable t;
  const std::int64_t h = c.hidden_size;
  const std::int64_t inter = c.intermediate_size;
  t.add("bert.embeddings.word_embeddings.weight", {c.vocab_size, h});
  t.add("bert.embeddings.position_embeddings.weight", {c.max_position_embeddings, h});
  t.add("bert.embeddings.token_type_embeddings.weight", {c.type_vocab_size, h});
  t.add("bert.embeddings.LayerNorm.weight", {h});
  t.add("bert.embeddings.LayerNorm.bias", {h});
  for (std::int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = fmt::format("bert.encoder.layer.{}.", l);
    t.add(p + "attention.self.query.weight", {h, h});
    t.add(p + "attention.self.key.weight", {h, h}, false);
    t.add(p + "attention.self.value.weight", {h, h}, false);
    t.add(p + "attention.self.query.bias", {h});
    t.add(p + "attention.self.key.bias", {h}, false);
    t.add(p + "attention.self.value.bias", {h}, false);
    t.add(p + "attention.output.dense.weight", {h, h});
    t.add(p + "attention.output.dense.bias", {h});
    t.add(p + "attention.output.LayerNorm.weight", {h});
    t.add(p + "attention.output.LayerNorm.bias", {h});
    t.add(p + "intermediate.dense.weight", {inter, h});
    t.add(p + "intermediate.dense.bias", {inter});
    t.add(p + "output.dense.weight", {h, inter});
    t.add(p + "output.dense.bias", {h});
    t.add(p + "output.LayerNorm.weight", {h});
    t.add(p + "output.LayerNorm.bias", {h});
  }
  t.add("bert.pooler.dense.weight", {h, h});
  t.add("bert.pooler.dense.bias", {h});
  t.add("classifier.weight", {c.num_labels(), h});
  t.add("classifier.bias", {c.num_labels()});
  return t;
}

const ParamEntry* ParamTable::find(std::string_view name) const {
  for (const ParamEntry& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

const ParamEntry& ParamTable::at(std::string_view name) const {
  const ParamEntry* e = find(name);
  if (e == nullptr) throw Error(fmt::format("the model has no parameter '{}'", name));
  return *e;
}

std::int64_t ParamTable::padded_count(int world_size) const {
  if (world_size < 1 || world_size > kMaxWorkers) {
    throw InputError(fmt::format("{} workers: shmtrain supports 1 to {} workers per job", world_size, kMaxWorkers));
  }
  const std::int64_t granule = kAlignFloats * world_size;
  return (count_ + granule - 1) / granule * granule;
}

}  // namespace shmtrain
