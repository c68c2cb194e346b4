#pragma once
// Everything that differs between the model families shmtrain trains, one descriptor per
// family in src/model/architectures/<family>.cpp: config.json's keys and defaults, the
// parameter names of the embeddings, the encoder layers and the heads (Hugging Face's
// state_dict keys), and the few choices the forward pass makes per family. The rest of model/
// asks the descriptor; no other code compares model_type. A new family is one new file here,
// a line in architectures.cpp, and the kernels it needs.
#include <map>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "shmtrain/model/bert_config.hpp"

namespace shmtrain::model {

class ConfigObject;  // config/config_object.hpp
// config.json's top-level keys as the writer collects them (sorted, as transformers writes).
using ConfigFields = std::map<std::string, nlohmann::ordered_json>;

// The config.json names of the hyper-parameters every family has. BertConfig's fields carry
// BERT's names; DistilBERT spells the same quantities dim, n_layers, ...
struct ConfigKeys {
  const char* hidden_size;
  const char* num_hidden_layers;
  const char* num_attention_heads;
  const char* intermediate_size;
  const char* hidden_act;
  const char* hidden_dropout_prob;
  const char* attention_probs_dropout_prob;
};

// One encoder layer's modules, named after the layer's prefix; each has a ".weight" and a
// ".bias". The table lays out the Q/K/V weights adjacently, then their three biases: together
// the (3H, H) weight and (3H) bias of one fused Q/K/V linear.
struct LayerModules {
  const char* query;
  const char* key;
  const char* value;
  const char* attention_output;  // the dense layer after attention
  const char* attention_norm;    // LayerNorm after the attention block's residual
  const char* intermediate;      // the feed-forward's first linear (H -> intermediate)
  const char* output;            // its second (intermediate -> H)
  const char* output_norm;       // LayerNorm after the feed-forward's residual
};

struct Architecture {
  const char* model_type;    // config.json's model_type: "bert"
  const char* class_prefix;  // transformers' classes are <class_prefix>For<Head>: "Bert"
  const char* display_name;  // in messages: "BERT"
  const char* base_prefix;   // the encoder's state_dict prefix: "bert."
  const char* layer_prefix;  // an encoder layer's, with {} for its index: "bert.encoder.layer.{}."
  LayerModules layer;

  // Sequence classification: the dense layer between the first token and the classifier
  // ("bert.pooler.dense", DistilBERT's "pre_classifier"), whether it belongs to the head
  // (a base checkpoint lacks it and it is initialised) or to the encoder (BERT's pooler), and
  // its activation.
  const char* pooler;
  bool pooler_is_head;
  bool pooler_relu;  // ReLU (DistilBERT) or tanh (BERT, RoBERTa)
  // The classifier's module name ("classifier", RoBERTa's "classifier.out_proj"), and whether
  // dropout also comes before the dense layer (RobertaClassificationHead's first dropout).
  const char* classifier;
  bool dropout_before_pooler;
  // The dropout rate before the classifier, and before qa_outputs (nullptr: none).
  double BertConfig::*classifier_dropout;
  double BertConfig::*qa_dropout;
  // BERT drops the attention block's output before its residual; DistilBERT does not.
  bool attention_output_dropout;
  // RoBERTa's positions: padding_idx + 1 + the running count of non-padding tokens, and
  // padding_idx for padding (the table's first pad_token_id + 1 rows are never a real
  // token's); BERT's and DistilBERT's: 0, 1, 2, ...
  bool positions_from_ids;

  ConfigKeys keys;
  // transformers' defaults where they differ from BertConfig's initialisers.
  void (*set_defaults)(BertConfig& config);
  // The family's own keys, read after the common ones; throws through config.fail.
  void (*read_config)(const ConfigObject& config, BertConfig& out);
  // The family's own keys as save_pretrained writes them.
  void (*write_config)(const BertConfig& config, ConfigFields& fields);
  // Checks of the family's own values; throws InputError "<source>: ...".
  void (*validate)(const BertConfig& config, const std::string& source);
};

// The positions a sequence of the family can use: max_position_embeddings, less RoBERTa's
// pad_token_id + 1 reserved rows (514 -> 512).
std::int64_t usable_positions(const BertConfig& config);

// config.json's classifier_dropout, which shmtrain's heads take from hidden_dropout_prob: null
// or equal to it, else config.fail names the key (BERT's and RoBERTa's read_config).
void read_classifier_dropout(const ConfigObject& config, const BertConfig& out);

// nullptr for a model_type shmtrain does not train.
const Architecture* find_architecture(std::string_view model_type);
// The descriptor of config.model_type. REQUIRES: a known model_type (validate() checks it).
const Architecture& architecture_of(const BertConfig& config);
// The families shmtrain trains, for messages: "BERT ("bert"), DistilBERT ("distilbert"), ...".
std::string supported_model_types();

}  // namespace shmtrain::model
