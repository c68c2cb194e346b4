// RoBERTa, XLM-RoBERTa and CamemBERT (transformers' RobertaConfig/XLMRobertaConfig/
// CamembertConfig and their ForSequenceClassification and ForQuestionAnswering classes): BERT's
// encoder under the "roberta." prefix, with positions counted from padding_idx + 1 (so a
// 514-row table holds 512 positions), one token type, LayerNorm eps 1e-5 from config.json,
// and a classification head of its own on <s>: dropout, dense, tanh, dropout, out_proj. The
// checkpoints on the Hub also carry lm_head.* and roberta.pooler.*, which these heads leave
// unused.
#include "architecture.hpp"

#include "model/config/config_object.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::model {
namespace {

// RobertaConfig's class defaults where they differ from BertConfig's (the released
// checkpoints set the rest: 514 positions, one token type, eps 1e-5).
void set_roberta_defaults(BertConfig& config) {
  config.architectures = {"RobertaForSequenceClassification"};
  config.vocab_size = 50265;
  config.pad_token_id = 1;
  config.bos_token_id = 0;
  config.eos_token_id = 2;
}

void read_roberta_config(const ConfigObject& config, BertConfig& out) {
  read_bert_keys(config, out);
  config.read("bos_token_id", out.bos_token_id);
  config.read("eos_token_id", out.eos_token_id);
}

void write_roberta_config(const BertConfig& config, ConfigFields& fields) {
  write_bert_keys(config, fields);
  fields["bos_token_id"] = config.bos_token_id;
  fields["eos_token_id"] = config.eos_token_id;
}

void validate_roberta(const BertConfig& config, const std::string& source) {
  validate_bert_keys(config, source);
  if (config.max_position_embeddings <= config.pad_token_id + 1) {
    fail_input("{}: max_position_embeddings {} leaves no position: RoBERTa's positions start at pad_token_id + 1 = {}",
               source, config.max_position_embeddings, config.pad_token_id + 1);
  }
}

Architecture roberta_family(const char* model_type, const char* class_prefix, const char* display_name) {
  return Architecture{
      .model_type = model_type,
      .class_prefix = class_prefix,
      .display_name = display_name,
      .base_prefix = "roberta.",
      .layer_prefix = "roberta.encoder.layer.{}.",
      .embeddings = {"embeddings.word_embeddings", "embeddings.LayerNorm"},
      // query, key, value, qkv, attention_output, attention_norm, intermediate, output, output_norm
      .layer = {"attention.self.query", "attention.self.key", "attention.self.value", nullptr,
                "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense", "output.dense",
                "output.LayerNorm"},
      .structure = post_norm_structure(PositionEncoding::kLearnedFromIds, true),
      .pooler = "classifier.dense",
      .pooler_is_head = true,  // RobertaClassificationHead's; roberta.pooler is not used
      .pooler_activation = Activation::kTanh,
      .pooler_norm = nullptr,
      .token_heads_use_pooler = false,
      .classifier = "classifier.out_proj",
      .pooler_input_dropout = &BertConfig::hidden_dropout_prob,
      .qa_outputs = "qa_outputs",
      .classifier_dropout = &BertConfig::hidden_dropout_prob,
      .token_dropout = &BertConfig::hidden_dropout_prob,
      .qa_dropout = nullptr,
      .masked_lm = {"lm_head.dense", "lm_head.layer_norm", "lm_head.bias"},
      .multiple_choice = ChoiceHead::kOwnDense,  // RobertaForMultipleChoice: the encoder's pooler
      .choice_pooler = "roberta.pooler.dense",
      .choice_activation = Activation::kTanh,
      .choice_dropout = &BertConfig::hidden_dropout_prob,
      .zero_padding_embedding = true,
      .init_std = nullptr,
      // hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, hidden_act,
      // hidden_dropout_prob, attention_probs_dropout_prob
      .keys = {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_act",
               "hidden_dropout_prob", "attention_probs_dropout_prob"},
      .set_defaults = set_roberta_defaults,
      .read_config = read_roberta_config,
      .write_config = write_roberta_config,
      .validate = validate_roberta};
}

}  // namespace

const Architecture& roberta_architecture() {
  static const Architecture roberta = roberta_family("roberta", "Roberta", "RoBERTa");
  return roberta;
}

const Architecture& xlm_roberta_architecture() {
  static const Architecture xlmr = [] {
    Architecture a = roberta_family("xlm-roberta", "XLMRoberta", "XLM-RoBERTa");
    a.set_defaults = [](BertConfig& config) {
      set_roberta_defaults(config);
      config.architectures = {"XLMRobertaForSequenceClassification"};
      config.vocab_size = 250002;
    };
    return a;
  }();
  return xlmr;
}

const Architecture& camembert_architecture() {
  static const Architecture camembert = [] {
    Architecture a = roberta_family("camembert", "Camembert", "CamemBERT");
    a.set_defaults = [](BertConfig& config) {
      set_roberta_defaults(config);
      config.architectures = {"CamembertForSequenceClassification"};
      config.vocab_size = 32005;
    };
    return a;
  }();
  return camembert;
}

}  // namespace shmtrain::model
