// DistilBERT (transformers' DistilBertConfig, DistilBertModel,
// DistilBertForSequenceClassification, DistilBertForQuestionAnswering). The same encoder as
// BERT's with other names, no token types, no dropout on the attention output, a ReLU
// pre_classifier of the head's own and dropouts before both heads.
#include "architecture.hpp"

#include "model/config/config_object.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::model {
namespace {

// DistilBertConfig's defaults (distilbert-base: 6 layers). LayerNorm eps is fixed at 1e-12 in
// DistilBERT's modules; it has no token types.
void set_distilbert_defaults(BertConfig& config) {
  config.architectures = {"DistilBertForSequenceClassification"};
  config.num_hidden_layers = 6;
  config.type_vocab_size = 0;
  config.layer_norm_eps = 1e-12;
}

void read_distilbert_config(const ConfigObject& config, BertConfig& out) {
  config.read("seq_classif_dropout", out.seq_classif_dropout);
  config.read("qa_dropout", out.qa_dropout);
  bool sinusoidal = false;
  config.read("sinusoidal_pos_embds", sinusoidal);
  if (sinusoidal) {
    config.fail(
        "sinusoidal_pos_embds",
        "is true: shmtrain implements learned position embeddings only (false, as distilbert-base-*)");
  }
}

void write_distilbert_config(const BertConfig& config, ConfigFields& fields) {
  // LayerNorm eps (1e-12) and the absent token types are implied by the model type.
  fields["qa_dropout"] = config.qa_dropout;
  fields["seq_classif_dropout"] = config.seq_classif_dropout;
  fields["sinusoidal_pos_embds"] = false;
}

void validate_distilbert(const BertConfig& config, const std::string& source) {
  if (config.type_vocab_size != 0) {
    fail_input("{}: DistilBERT has no token type embeddings (type_vocab_size 0)", source);
  }
}

}  // namespace

const Architecture& distilbert_architecture() {
  static const Architecture distilbert{
      .model_type = "distilbert",
      .class_prefix = "DistilBert",
      .display_name = "DistilBERT",
      .base_prefix = "distilbert.",
      .layer_prefix = "distilbert.transformer.layer.{}.",
      .embeddings = {"embeddings.word_embeddings", "embeddings.LayerNorm"},
      // query, key, value, qkv, attention_output, attention_norm, intermediate, output, output_norm
      .layer = {"attention.q_lin", "attention.k_lin", "attention.v_lin", nullptr, "attention.out_lin",
                "sa_layer_norm", "ffn.lin1", "ffn.lin2", "output_layer_norm"},
      // MultiHeadSelfAttention.out_lin has no dropout after it
      .structure = post_norm_structure(PositionEncoding::kLearned, false),
      .pooler = "pre_classifier",
      .pooler_is_head = true,
      .pooler_activation = Activation::kRelu,
      .pooler_norm = nullptr,
      .token_heads_use_pooler = false,
      .classifier = "classifier",
      .pooler_input_dropout = nullptr,
      .qa_outputs = "qa_outputs",
      .classifier_dropout = &BertConfig::seq_classif_dropout,
      .token_dropout = &BertConfig::hidden_dropout_prob,  // DistilBertForTokenClassification: config.dropout
      .qa_dropout = &BertConfig::qa_dropout,
      .masked_lm = {"vocab_transform", "vocab_layer_norm", "vocab_projector.bias"},
      .multiple_choice = ChoiceHead::kSequenceHead,
      .choice_pooler = nullptr,
      .choice_activation = Activation::kTanh,  // unused
      .choice_dropout = nullptr,
      .zero_padding_embedding = true,
      .init_std = nullptr,
      // hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, hidden_act,
      // hidden_dropout_prob, attention_probs_dropout_prob
      .keys = {"dim", "n_layers", "n_heads", "hidden_dim", "activation", "dropout", "attention_dropout"},
      .set_defaults = set_distilbert_defaults,
      .read_config = read_distilbert_config,
      .write_config = write_distilbert_config,
      .validate = validate_distilbert};
  return distilbert;
}

}  // namespace shmtrain::model
