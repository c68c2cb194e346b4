#pragma once
// The one deterministic name -> (offset, shape) table from which the parameter, gradient and
// optimizer-state arenas are laid out (all three share it). Names are Hugging Face's
// state_dict keys of the model's class (config.architecture()), so checkpoints map one to one
// (each family's names are in src/model/architectures/<family>.cpp):
//   BertForSequenceClassification        bert.{embeddings, encoder.layer.N}.*, bert.pooler.dense.*,
//                                        classifier.*
//   BertForQuestionAnswering             bert.{embeddings, encoder.layer.N}.*, qa_outputs.* (no pooler)
//   DistilBertForSequenceClassification  distilbert.{embeddings, transformer.layer.N}.*,
//                                        pre_classifier.*, classifier.*
//   DistilBertForQuestionAnswering       distilbert.{embeddings, transformer.layer.N}.*, qa_outputs.*
//
// Order: embeddings, then each encoder layer, then the head, so the last layers' gradients
// sit at the end of the arena (the exchange reduces buckets from the end while backward still
// runs, and the model's backward finishes them in that order). Inside a layer, the
// query/key/value weights (DistilBERT: q_lin/k_lin/v_lin) are adjacent, and so are their
// biases: together they are the (3H, H) weight and (3H) bias of one fused Q/K/V linear.
// ModernBERT (ModernBertFor*: model.{embeddings, layers.N, final_norm}.*, head.*, classifier.*)
// has one Wqkv, and its biases only where config.json gives them; its layers list their
// modules in forward order (attn_norm, attn.Wqkv, attn.Wo, mlp_norm, mlp.Wi, mlp.Wo).
// Other entries start on a 64-byte boundary.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shmtrain/model/bert_config.hpp"

namespace shmtrain::model {

// What a parameter is, as the model declares it (not read from its name: ModernBERT's norms are
// "norm", "attn_norm", "final_norm", ...).
enum class ParamKind {
  kWeight,  // a linear's weight or an embedding table
  kBias,    // a linear's bias
  kNorm,    // a LayerNorm module's weight or bias
};

struct ParamEntry {
  std::string name;
  std::vector<std::int64_t> shape;
  std::int64_t offset = 0;  // in floats from the arena's start
  std::int64_t size = 0;    // product of shape
  ParamKind kind = ParamKind::kWeight;
  // The HF Trainer's rule (get_decay_parameter_names): no weight decay for biases and for the
  // parameters of LayerNorm modules, found by module type.
  bool decay = true;
};

class ParamTable {
 public:
  // The layout of config's model type and head (config.head).
  static ParamTable for_model(const BertConfig& config);
  // The layout of config's model type with the sequence-classification head, whatever
  // config.head says (benchmarks and tests of the classifier).
  static ParamTable for_sequence_classification(const BertConfig& config);

  const std::vector<ParamEntry>& entries() const { return entries_; }
  // nullptr when absent.
  const ParamEntry* find(std::string_view name) const;
  // Throws Error naming the parameter when absent.
  const ParamEntry& at(std::string_view name) const;
  // Floats up to the end of the last entry.
  std::int64_t count() const { return count_; }
  // count() rounded up so that `world_size` workers (1..64) each own an equal, 64-byte-aligned
  // slice: the length of every arena of a run with that many workers.
  std::int64_t padded_count(int world_size) const;

 private:
  void add(std::string name, std::vector<std::int64_t> shape, ParamKind kind, bool align = true);
  // A LayerNorm module's weight and, when it has one, its bias.
  void add_norm(const std::string& module, std::int64_t width, bool bias);
  // A linear layer's weight (out, in) and, when it has one, its bias (out).
  void add_linear(const std::string& module, std::int64_t out, std::int64_t in, bool bias);
  // The head's modules on the encoder (config.head), after the layers.
  void add_head(const BertConfig& config);
  std::vector<ParamEntry> entries_;
  std::int64_t count_ = 0;
};

}  // namespace shmtrain::model
