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

// One encoder layer's modules, named after the layer's prefix; each has a ".weight" and, when
// the config gives the module a bias, a ".bias". BERT's families have separate query, key and
// value modules, which the table lays out adjacently (weights, then biases): together the
// (3H, H) weight and (3H) bias of one fused Q/K/V linear. ModernBERT's is one module, `qkv`.
struct LayerModules {
  const char* query;  // nullptr when `qkv` is set
  const char* key;
  const char* value;
  const char* qkv;               // the fused Q/K/V linear ("attn.Wqkv"), or nullptr
  const char* attention_output;  // the dense layer after attention
  const char* attention_norm;    // the attention block's norm (after its residual, or before it)
  const char* intermediate;      // the feed-forward's first linear (H -> intermediate, or 2 x for GeGLU)
  const char* output;            // its second (intermediate -> H)
  const char* output_norm;       // the feed-forward block's norm
};

// The embeddings' modules, after the base prefix.
struct EmbeddingModules {
  const char* word;  // "embeddings.word_embeddings", ModernBERT's "embeddings.tok_embeddings"
  const char* norm;  // "embeddings.LayerNorm", ModernBERT's "embeddings.norm"
};

// How the family's encoder layer computes: data that model/backbone and model/encoder_layer
// read, so that a family is a description, not a copy of the layer.
enum class NormPlacement {
  kAfterResidual,  // BERT: x -> LN(x + block(x)), for the attention and the feed-forward block
  kBeforeBlock,    // ModernBERT: x -> x + block(LN(x)), and a final norm after the last layer
};
enum class FeedForward {
  kGelu,   // gelu(x W_i^T) W_o^T
  kGeglu,  // (gelu(u) * g) W_o^T with [u | g] = x W_i^T (W_i is 2 x intermediate rows)
};
enum class PositionEncoding {
  kLearned,         // a position table, position t of the row (BERT, DistilBERT)
  kLearnedFromIds,  // RoBERTa's: padding_idx + 1 + the running count of non-padding tokens
  kRotary,          // rotary Q and K, no table; attention tiled (tensor/flash_attention) per layer type
};
// The attention a family's layers run (encoder_layer.hpp), a part the family chooses.
enum class AttentionKind {
  kScaledDotProduct,  // softmax(q k^T / sqrt(d)) over stored probabilities (tensor/attention)
  kRotaryTiled,       // rotary Q/K, tiled without stored scores, windowed per layer type (tensor/flash_attention)
  kDisentangled,      // DeBERTa's: plus content->position and position->content terms (tensor/disentangled_attention)
};
enum class Activation { kTanh, kRelu, kGelu };

// <Family>ForMaskedLM's head: transform = norm(GELU(dense(x))), then the decoder, whose weight is
// the word-embedding matrix (tied: not a parameter of its own, not saved) and whose bias is
// `bias`. dense nullptr: shmtrain has no masked-LM head for the family.
struct MaskedLmModules {
  const char* dense;  // "cls.predictions.transform.dense", "lm_head.dense", "vocab_transform"
  const char* norm;   // "cls.predictions.transform.LayerNorm", "lm_head.layer_norm", ...
  const char* bias;   // "cls.predictions.bias", "lm_head.bias", "vocab_projector.bias"
};

// <Family>ForMultipleChoice's head over each choice's row: kSequenceHead, the family's
// sequence-classification computation with one output (BERT, DistilBERT, ModernBERT, DeBERTa);
// kOwnDense, a dense layer of its own on the first token instead (`choice_pooler`, initialised
// when a checkpoint lacks it), `choice_activation`, dropout(config.*choice_dropout), `classifier`:
// RoBERTa's encoder pooler (tanh, hidden_dropout_prob), ELECTRA's SequenceSummary (GELU,
// summary_last_dropout); kNone: not supported.
enum class ChoiceHead { kNone, kSequenceHead, kOwnDense };

struct LayerStructure {
  NormPlacement norm;
  bool first_attention_norm;  // false: layer 0's attention norm is Identity (ModernBERT)
  FeedForward feed_forward;
  PositionEncoding positions;
  AttentionKind attention;
  // Dropout after the attention's output dense, before its residual: BERT's hidden_dropout_prob
  // (true); DistilBERT has none; ModernBERT's out_drop uses attention_dropout (refused > 0).
  bool attention_output_dropout;
  // ModernBERT drops the feed-forward's inner activation (mlp_dropout, before W_o); BERT drops
  // the output dense's result (hidden_dropout_prob, before the residual).
  bool dropout_inside_feed_forward;
  double BertConfig::*embedding_dropout;  // the embeddings' dropout rate
  const char* final_norm;                 // the norm after the last layer (full name), or nullptr
};

struct Architecture {
  const char* model_type;    // config.json's model_type: "bert"
  const char* class_prefix;  // transformers' classes are <class_prefix>For<Head>: "Bert"
  const char* display_name;  // in messages: "BERT"
  const char* base_prefix;   // the encoder's state_dict prefix: "bert."
  const char* layer_prefix;  // an encoder layer's, with {} for its index: "bert.encoder.layer.{}."
  EmbeddingModules embeddings;
  LayerModules layer;
  LayerStructure structure;

  // Sequence classification: the dense layer between the pooled token and the classifier
  // ("bert.pooler.dense", DistilBERT's "pre_classifier", ModernBERT's "head.dense"), whether it
  // belongs to the head (a base checkpoint lacks it and it is initialised) or to the encoder
  // (BERT's pooler), its activation, and the norm after it (ModernBertPredictionHead's
  // "head.norm"; nullptr: none).
  const char* pooler;
  bool pooler_is_head;
  Activation pooler_activation;
  const char* pooler_norm;
  // ModernBERT runs the same prediction head (pooler, activation, norm) on every token before
  // its token-classification and question-answering classifiers; BERT's heads read the
  // encoder's output directly.
  bool token_heads_use_pooler;
  // The classifier's module name ("classifier", RoBERTa's "classifier.out_proj"), and the rate of
  // a dropout before the dense layer (RobertaClassificationHead's first dropout, DeBERTa's
  // ContextPooler's pooler_dropout; nullptr: none).
  const char* classifier;
  double BertConfig::*pooler_input_dropout;
  // The question-answering linear: "qa_outputs" (BERT's families), "classifier" (ModernBERT).
  const char* qa_outputs;
  // The dropout rate before the classifier, before the token classifier, and before the QA
  // linear (nullptr: none).
  double BertConfig::*classifier_dropout;
  double BertConfig::*token_dropout;
  double BertConfig::*qa_dropout;
  MaskedLmModules masked_lm;
  ChoiceHead multiple_choice;
  const char* choice_pooler;  // kOwnDense's dense layer ("roberta.pooler.dense", "sequence_summary.summary")
  Activation choice_activation;
  double BertConfig::*choice_dropout;
  // nn.Embedding(padding_idx) zeroes the word table's padding row at initialisation (BERT's
  // families); ModernBERT's _init_weights overwrites it with random values.
  bool zero_padding_embedding;
  // The standard deviation a new parameter is drawn with, and whether the normal is truncated at
  // +-initializer_cutoff_factor std (ModernBERT's trunc_normal_); null: initializer_range.
  double (*init_std)(const BertConfig& config, std::string_view name);

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

// BERT's layer (post-norm, GELU feed-forward, learned positions), with or without dropout after
// the attention's output dense.
LayerStructure post_norm_structure(PositionEncoding positions, bool attention_output_dropout);

// BERT's own keys (type_vocab_size, layer_norm_eps, position_embedding_type, classifier_dropout),
// which RoBERTa's and ELECTRA's configs carry too: read, written as save_pretrained writes them,
// checked (bert.cpp).
void read_bert_keys(const ConfigObject& config, BertConfig& out);
void write_bert_keys(const BertConfig& config, ConfigFields& fields);
void validate_bert_keys(const BertConfig& config, const std::string& source);

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
