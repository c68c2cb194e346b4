#include "shmtrain/model/param_table.hpp"

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain {
namespace {
constexpr std::int64_t kAlignFloats = 16;  // 64 bytes
constexpr int kMaxWorkers = 64;
}  // namespace

bool is_layer_norm_parameter(std::string_view name) {
  return name.find("LayerNorm") != std::string_view::npos || name.find("layer_norm.") != std::string_view::npos;
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
  ParamTable t;
  const std::int64_t h = c.hidden_size;
  const std::int64_t inter = c.intermediate_size;
  if (c.is_distilbert()) {
    t.add("distilbert.embeddings.word_embeddings.weight", {c.vocab_size, h});
    t.add("distilbert.embeddings.position_embeddings.weight", {c.max_position_embeddings, h});
    t.add("distilbert.embeddings.LayerNorm.weight", {h});
    t.add("distilbert.embeddings.LayerNorm.bias", {h});
    for (std::int64_t l = 0; l < c.num_hidden_layers; ++l) {
      const std::string p = fmt::format("distilbert.transformer.layer.{}.", l);
      t.add(p + "attention.q_lin.weight", {h, h});
      t.add(p + "attention.k_lin.weight", {h, h}, false);
      t.add(p + "attention.v_lin.weight", {h, h}, false);
      t.add(p + "attention.q_lin.bias", {h});
      t.add(p + "attention.k_lin.bias", {h}, false);
      t.add(p + "attention.v_lin.bias", {h}, false);
      t.add(p + "attention.out_lin.weight", {h, h});
      t.add(p + "attention.out_lin.bias", {h});
      t.add(p + "sa_layer_norm.weight", {h});
      t.add(p + "sa_layer_norm.bias", {h});
      t.add(p + "ffn.lin1.weight", {inter, h});
      t.add(p + "ffn.lin1.bias", {inter});
      t.add(p + "ffn.lin2.weight", {h, inter});
      t.add(p + "ffn.lin2.bias", {h});
      t.add(p + "output_layer_norm.weight", {h});
      t.add(p + "output_layer_norm.bias", {h});
    }
  } else {
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
  }
  if (c.head == ModelHead::kQuestionAnswering) {
    t.add("qa_outputs.weight", {c.num_labels(), h});
    t.add("qa_outputs.bias", {c.num_labels()});
    return t;
  }
  const char* dense = c.is_distilbert() ? "pre_classifier" : "bert.pooler.dense";
  t.add(fmt::format("{}.weight", dense), {h, h});
  t.add(fmt::format("{}.bias", dense), {h});
  t.add("classifier.weight", {c.num_labels(), h});
  t.add("classifier.bias", {c.num_labels()});
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
    throw InputError(fmt::format("{} workers: shmtrain supports 1 to {} workers per job", world_size, kMaxWorkers));
  }
  const std::int64_t granule = kAlignFloats * world_size;
  return (count_ + granule - 1) / granule * granule;
}

}  // namespace shmtrain
