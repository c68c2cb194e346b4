#include "shmtrain/model/param_table.hpp"

#include <fmt/format.h>

#include "architectures/architecture.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::model {
namespace {
constexpr std::int64_t kAlignFloats = 16;  // 64 bytes
constexpr int kMaxWorkers = 64;
}  // namespace

bool is_layer_norm_parameter(std::string_view name) {
  return name.find("LayerNorm") != std::string_view::npos ||
         name.find("layer_norm.") != std::string_view::npos;
}

bool hf_decays(std::string_view name) { return !name.ends_with("bias") && !is_layer_norm_parameter(name); }

void ParamTable::add(std::string name, std::vector<std::int64_t> shape, bool align) {
  if (align) count_ = (count_ + kAlignFloats - 1) / kAlignFloats * kAlignFloats;
  std::int64_t size = 1;
  for (std::int64_t d : shape) size *= d;
  const bool decay = hf_decays(name);
  entries_.push_back({std::move(name), std::move(shape), count_, size, decay});
  count_ += size;
}

ParamTable ParamTable::for_model(const BertConfig& c) {
  const Architecture& arch = architecture_of(c);
  ParamTable t;
  const std::int64_t h = c.hidden_size;
  const std::int64_t inter = c.intermediate_size;
  const std::string embeddings = std::string(arch.base_prefix) + "embeddings.";
  t.add(embeddings + "word_embeddings.weight", {c.vocab_size, h});
  t.add(embeddings + "position_embeddings.weight", {c.max_position_embeddings, h});
  if (c.has_token_types()) t.add(embeddings + "token_type_embeddings.weight", {c.type_vocab_size, h});
  t.add(embeddings + "LayerNorm.weight", {h});
  t.add(embeddings + "LayerNorm.bias", {h});
  const LayerModules& m = arch.layer;
  for (std::int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = fmt::format(fmt::runtime(arch.layer_prefix), l);
    auto add_linear = [&](const char* module, std::vector<std::int64_t> shape) {
      t.add(p + module + ".weight", shape);
      t.add(p + module + ".bias", {shape[0]});
    };
    t.add(p + m.query + ".weight", {h, h});
    t.add(p + m.key + ".weight", {h, h}, false);
    t.add(p + m.value + ".weight", {h, h}, false);
    t.add(p + m.query + ".bias", {h});
    t.add(p + m.key + ".bias", {h}, false);
    t.add(p + m.value + ".bias", {h}, false);
    add_linear(m.attention_output, {h, h});
    add_linear(m.attention_norm, {h});
    add_linear(m.intermediate, {inter, h});
    add_linear(m.output, {h, inter});
    add_linear(m.output_norm, {h});
  }
  if (c.head == ModelHead::kQuestionAnswering) {
    t.add("qa_outputs.weight", {c.num_labels(), h});
    t.add("qa_outputs.bias", {c.num_labels()});
    return t;
  }
  if (c.head == ModelHead::kTokenClassification) {  // <Family>ForTokenClassification: no pooler
    t.add("classifier.weight", {c.num_labels(), h});
    t.add("classifier.bias", {c.num_labels()});
    return t;
  }
  t.add(fmt::format("{}.weight", arch.pooler), {h, h});
  t.add(fmt::format("{}.bias", arch.pooler), {h});
  t.add(fmt::format("{}.weight", arch.classifier), {c.num_labels(), h});
  t.add(fmt::format("{}.bias", arch.classifier), {c.num_labels()});
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
