#include "shmtrain/model/param_table.hpp"

#include <fmt/format.h>

#include "architectures/architecture.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::model {
namespace {
constexpr std::int64_t kAlignFloats = 16;  // 64 bytes
constexpr int kMaxWorkers = 64;
}  // namespace

void ParamTable::add(std::string name, std::vector<std::int64_t> shape, ParamKind kind, bool align) {
  if (align) count_ = (count_ + kAlignFloats - 1) / kAlignFloats * kAlignFloats;
  std::int64_t size = 1;
  for (std::int64_t d : shape) size *= d;
  entries_.push_back({std::move(name), std::move(shape), count_, size, kind, kind == ParamKind::kWeight});
  count_ += size;
}

void ParamTable::add_norm(const std::string& module, std::int64_t width) {
  add(module + ".weight", {width}, ParamKind::kNorm);
  add(module + ".bias", {width}, ParamKind::kNorm);
}

void ParamTable::add_linear(const std::string& module, std::int64_t out, std::int64_t in) {
  add(module + ".weight", {out, in}, ParamKind::kWeight);
  add(module + ".bias", {out}, ParamKind::kBias);
}

ParamTable ParamTable::for_model(const BertConfig& c) {
  const Architecture& arch = architecture_of(c);
  ParamTable t;
  const std::int64_t h = c.hidden_size;
  const std::int64_t inter = c.intermediate_size;
  const std::string embeddings = std::string(arch.base_prefix) + "embeddings.";
  t.add(embeddings + "word_embeddings.weight", {c.vocab_size, h}, ParamKind::kWeight);
  t.add(embeddings + "position_embeddings.weight", {c.max_position_embeddings, h}, ParamKind::kWeight);
  if (c.has_token_types()) {
    t.add(embeddings + "token_type_embeddings.weight", {c.type_vocab_size, h}, ParamKind::kWeight);
  }
  t.add_norm(embeddings + "LayerNorm", h);
  const LayerModules& m = arch.layer;
  for (std::int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = fmt::format(fmt::runtime(arch.layer_prefix), l);
    t.add(p + m.query + ".weight", {h, h}, ParamKind::kWeight);
    t.add(p + m.key + ".weight", {h, h}, ParamKind::kWeight, false);
    t.add(p + m.value + ".weight", {h, h}, ParamKind::kWeight, false);
    t.add(p + m.query + ".bias", {h}, ParamKind::kBias);
    t.add(p + m.key + ".bias", {h}, ParamKind::kBias, false);
    t.add(p + m.value + ".bias", {h}, ParamKind::kBias, false);
    t.add_linear(p + m.attention_output, h, h);
    t.add_norm(p + m.attention_norm, h);
    t.add_linear(p + m.intermediate, inter, h);
    t.add_linear(p + m.output, h, inter);
    t.add_norm(p + m.output_norm, h);
  }
  if (c.head == ModelHead::kQuestionAnswering) {
    t.add_linear("qa_outputs", c.num_labels(), h);
    return t;
  }
  if (c.head == ModelHead::kTokenClassification) {  // <Family>ForTokenClassification: no pooler
    t.add_linear("classifier", c.num_labels(), h);
    return t;
  }
  t.add_linear(arch.pooler, h, h);
  t.add_linear(arch.classifier, c.num_labels(), h);
  return t;
}

ParamTable ParamTable::for_sequence_classification(const BertConfig& config) {
  BertConfig classifier = config;
  classifier.head = ModelHead::kSequenceClassification;
  return for_model(classifier);
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
    throw InputError(
        fmt::format("{} workers: shmtrain supports 1 to {} workers per job", world_size, kMaxWorkers));
  }
  const std::int64_t granule = kAlignFloats * world_size;
  return (count_ + granule - 1) / granule * granule;
}

}  // namespace shmtrain::model
