// BERT (transformers' BertConfig, BertModel, BertForSequenceClassification,
// BertForQuestionAnswering).
#include "architecture.hpp"

#include "model/config/config_object.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::model {

void read_bert_keys(const ConfigObject& config, BertConfig& out) {
  config.read("type_vocab_size", out.type_vocab_size);
  config.read("layer_norm_eps", out.layer_norm_eps);
  config.read("position_embedding_type", out.position_embedding_type);
  read_classifier_dropout(config, out);
}

void write_bert_keys(const BertConfig& config, ConfigFields& fields) {
  fields["classifier_dropout"] = nullptr;  // shmtrain's head uses hidden_dropout_prob
  fields["layer_norm_eps"] = config.layer_norm_eps;
  fields["position_embedding_type"] = config.position_embedding_type;
  fields["type_vocab_size"] = config.type_vocab_size;
  fields["use_cache"] = true;  // BertConfig's default; decoder-only, irrelevant to training
}

void validate_bert_keys(const BertConfig& config, const std::string& source) {
  if (config.type_vocab_size <= 0) {
    fail_input("{}: type_vocab_size must be positive, got {}", source, config.type_vocab_size);
  }
}

const Architecture& bert_architecture() {
  static const Architecture bert{
      .model_type = "bert",
      .class_prefix = "Bert",
      .display_name = "BERT",
      .base_prefix = "bert.",
      .layer_prefix = "bert.encoder.layer.{}.",
      .embeddings = {"embeddings.word_embeddings", "embeddings.LayerNorm"},
      // query, key, value, qkv, attention_output, attention_norm, intermediate, output, output_norm
      .layer = {"attention.self.query", "attention.self.key", "attention.self.value", nullptr,
                "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense", "output.dense",
                "output.LayerNorm"},
      .structure = post_norm_structure(PositionEncoding::kLearned, true),
      .pooler = "bert.pooler.dense",
      .pooler_is_head = false,  // part of BertModel: BERT checkpoints carry it
      .pooler_activation = Activation::kTanh,
      .pooler_norm = nullptr,
      .token_heads_use_pooler = false,
      .classifier = "classifier",
      .pooler_input_dropout = nullptr,
      .qa_outputs = "qa_outputs",
      .classifier_dropout = &BertConfig::hidden_dropout_prob,
      .token_dropout = &BertConfig::hidden_dropout_prob,
      .qa_dropout = nullptr,  // BertForQuestionAnswering has no dropout before qa_outputs
      .masked_lm = {"cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", "cls.predictions.bias"},
      .multiple_choice = ChoiceHead::kSequenceHead,
      .choice_pooler = nullptr,
      .choice_activation = Activation::kTanh,  // unused
      .choice_dropout = nullptr,
      .zero_padding_embedding = true,
      .init_std = nullptr,
      // hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, hidden_act,
      // hidden_dropout_prob, attention_probs_dropout_prob
      .keys = {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_act",
               "hidden_dropout_prob", "attention_probs_dropout_prob"},
      .set_defaults = [](BertConfig&) {},  // BertConfig's initialisers are BERT's defaults
      .read_config = read_bert_keys,
      .write_config = write_bert_keys,
      .validate = validate_bert_keys};
  return bert;
}

}  // namespace shmtrain::model
