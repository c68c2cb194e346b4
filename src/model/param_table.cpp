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

void ParamTable::add_norm(const std::string& module, std::int64_t width, bool bias) {
  add(module + ".weight", {width}, ParamKind::kNorm);
  if (bias) add(module + ".bias", {width}, ParamKind::kNorm);
}

void ParamTable::add_linear(const std::string& module, std::int64_t out, std::int64_t in, bool bias) {
  add(module + ".weight", {out, in}, ParamKind::kWeight);
  if (bias) add(module + ".bias", {out}, ParamKind::kBias);
}

void ParamTable::add_head(const BertConfig& c) {
  const Architecture& arch = architecture_of(c);
  const std::int64_t h = c.hidden_size;
  auto pooler = [&] {
    add_linear(arch.pooler, h, h, c.classifier_bias);
    if (arch.pooler_norm != nullptr) add_norm(arch.pooler_norm, h, c.norm_bias);
  };
  // The classifiers always have a bias (ModernBERT's classifier_bias is head.dense's).
  if (c.head == ModelHead::kSentenceEmbedding) return;  // <Family>Model: Pooling has no weights
  if (c.head == ModelHead::kQuestionAnswering) {
    if (arch.token_heads_use_pooler) pooler();
    add_linear(arch.qa_outputs, c.num_labels(), h, true);
  } else if (c.head == ModelHead::kTokenClassification) {  // <Family>ForTokenClassification: no pooler
    if (arch.token_heads_use_pooler) pooler();
    add_linear("classifier", c.num_labels(), h, true);
  } else if (c.head == ModelHead::kMaskedLm) {  // the decoder's weight is the word embeddings'
    add_linear(arch.masked_lm.dense, h, h, c.classifier_bias);
    add_norm(arch.masked_lm.norm, h, c.norm_bias);
    if (c.decoder_bias) add(arch.masked_lm.bias, {c.vocab_size}, ParamKind::kBias);
  } else if (c.head == ModelHead::kMultipleChoice) {  // one score per choice
    if (arch.multiple_choice == ChoiceHead::kOwnDense) {
      add_linear(arch.choice_pooler, h, h, true);
    } else {
      pooler();
    }
    add_linear("classifier", 1, h, true);
  } else {
    pooler();
    add_linear(arch.classifier, c.num_labels(), h, true);
  }
}

ParamTable ParamTable::for_model(const BertConfig& c) {
  const Architecture& arch = architecture_of(c);
  const LayerStructure& structure = arch.structure;
  ParamTable t;
  const std::int64_t h = c.hidden_size;
  const std::int64_t inter = c.intermediate_size;
  const std::string base = arch.base_prefix;
  const std::int64_t e = c.embedding_width();
  t.add(base + arch.embeddings.word + ".weight", {c.vocab_size, e}, ParamKind::kWeight);
  if (c.has_position_table()) {
    t.add(base + "embeddings.position_embeddings.weight", {c.max_position_embeddings, e}, ParamKind::kWeight);
  }
  if (c.has_token_types()) {
    t.add(base + "embeddings.token_type_embeddings.weight", {c.type_vocab_size, e}, ParamKind::kWeight);
  }
  t.add_norm(base + arch.embeddings.norm, e, c.norm_bias);
  if (c.projects_embeddings()) t.add_linear(base + "embeddings_project", h, e, true);  // ELECTRA
  const bool disentangled = structure.attention == AttentionKind::kDisentangled;
  if (disentangled) {  // DeBERTa's, read by every layer: before them, final when layer 0 is
    t.add(base + "encoder.rel_embeddings.weight", {2 * c.relative_span(), h}, ParamKind::kWeight);
    if (c.norm_rel_ebd == "layer_norm") t.add_norm(base + "encoder.LayerNorm", h, true);
  }
  const LayerModules& m = arch.layer;
  const std::int64_t inter_rows = structure.feed_forward == FeedForward::kGeglu ? 2 * inter : inter;
  const bool pre_norm = structure.norm == NormPlacement::kBeforeBlock;
  for (std::int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = fmt::format(fmt::runtime(arch.layer_prefix), l);
    if (pre_norm && (l > 0 || structure.first_attention_norm)) t.add_norm(p + m.attention_norm, h, c.norm_bias);
    if (m.qkv != nullptr) {
      t.add_linear(p + m.qkv, 3 * h, h, c.attention_bias);
    } else {
      t.add(p + m.query + ".weight", {h, h}, ParamKind::kWeight);
      t.add(p + m.key + ".weight", {h, h}, ParamKind::kWeight, false);
      t.add(p + m.value + ".weight", {h, h}, ParamKind::kWeight, false);
      t.add(p + m.query + ".bias", {h}, ParamKind::kBias);
      t.add(p + m.key + ".bias", {h}, ParamKind::kBias, false);
      t.add(p + m.value + ".bias", {h}, ParamKind::kBias, false);
    }
    if (disentangled && !c.share_att_key) {  // the position tables' own projections
      if (c.c2p()) t.add_linear(p + "attention.self.pos_key_proj", h, h, true);
      if (c.p2c()) t.add_linear(p + "attention.self.pos_query_proj", h, h, true);
    }
    t.add_linear(p + m.attention_output, h, h, c.attention_bias);
    if (!pre_norm) t.add_norm(p + m.attention_norm, h, c.norm_bias);
    if (pre_norm) t.add_norm(p + m.output_norm, h, c.norm_bias);
    t.add_linear(p + m.intermediate, inter_rows, h, c.mlp_bias);
    t.add_linear(p + m.output, h, inter, c.mlp_bias);
    if (!pre_norm) t.add_norm(p + m.output_norm, h, c.norm_bias);
  }
  if (structure.final_norm != nullptr) t.add_norm(structure.final_norm, h, c.norm_bias);
  t.add_head(c);
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
