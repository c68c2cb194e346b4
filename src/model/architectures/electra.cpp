// ELECTRA (transformers' ElectraConfig, ElectraModel, ElectraForSequenceClassification,
// ElectraForTokenClassification, ElectraForQuestionAnswering; a discriminator checkpoint,
// ElectraForPreTraining, loads into any of them with discriminator_predictions.* unused): BERT's
// encoder under "electra.", embeddings embedding_size wide and projected to hidden_size by
// `embeddings_project` when the two differ, no pooler, and ElectraClassificationHead on the
// first token: dropout, dense, GELU, dropout, out_proj.
#include "architecture.hpp"

#include "model/config/config_object.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::model {
namespace {

// ElectraConfig's defaults (google/electra-small-discriminator's shapes).
void set_electra_defaults(BertConfig& config) {
  config.architectures = {"ElectraForSequenceClassification"};
  config.embedding_size = 128;
  config.hidden_size = 256;
  config.num_attention_heads = 4;
  config.intermediate_size = 1024;
}

void read_electra_config(const ConfigObject& config, BertConfig& out) {
  config.read("embedding_size", out.embedding_size);
  read_bert_keys(config, out);
  config.read("summary_type", out.summary_type);
  config.read("summary_use_proj", out.summary_use_proj);
  config.read("summary_activation", out.summary_activation);
  config.read("summary_last_dropout", out.summary_last_dropout);
  out.has_summary_first_dropout = config.find("summary_first_dropout") != nullptr;
  config.read("summary_first_dropout", out.summary_first_dropout);
}

void write_electra_config(const BertConfig& config, ConfigFields& fields) {
  write_bert_keys(config, fields);
  fields["embedding_size"] = config.embedding_width();
  // ElectraConfig's sequence-summary keys, as it saves them.
  fields["summary_activation"] = config.summary_activation;
  fields["summary_last_dropout"] = config.summary_last_dropout;
  fields["summary_type"] = config.summary_type;
  fields["summary_use_proj"] = config.summary_use_proj;
  if (config.has_summary_first_dropout) fields["summary_first_dropout"] = config.summary_first_dropout;
}

void validate_electra(const BertConfig& config, const std::string& source) {
  if (config.embedding_size <= 0 || config.embedding_size > ConfigLimits::kHiddenSize) {
    fail_input("{}: embedding_size must be in [1, {}], got {}", source, ConfigLimits::kHiddenSize,
               config.embedding_size);
  }
  validate_bert_keys(config, source);
  if (config.summary_last_dropout < 0 || config.summary_last_dropout >= 1) {
    fail_input("{}: summary_last_dropout must be in [0, 1), got {}", source, config.summary_last_dropout);
  }
  if (config.head != ModelHead::kMultipleChoice) return;  // only ElectraForMultipleChoice reads them
  if (config.summary_type != "first" || !config.summary_use_proj || config.summary_activation != "gelu" ||
      config.summary_first_dropout > 0) {
    fail_input("{}: ElectraForMultipleChoice is supported with its SequenceSummary as ElectraConfig sets it "
               "(summary_type \"first\", summary_use_proj true, summary_activation \"gelu\", no "
               "summary_first_dropout); the config says summary_type \"{}\", summary_use_proj {}, summary_activation "
               "\"{}\", summary_first_dropout {}",
               source, config.summary_type, config.summary_use_proj, config.summary_activation,
               config.summary_first_dropout);
  }
}

}  // namespace

const Architecture& electra_architecture() {
  static const Architecture electra{
      .model_type = "electra",
      .class_prefix = "Electra",
      .display_name = "ELECTRA",
      .base_prefix = "electra.",
      .layer_prefix = "electra.encoder.layer.{}.",
      .embeddings = {"embeddings.word_embeddings", "embeddings.LayerNorm"},
      // query, key, value, qkv, attention_output, attention_norm, intermediate, output, output_norm
      .layer = {"attention.self.query", "attention.self.key", "attention.self.value", nullptr,
                "attention.output.dense", "attention.output.LayerNorm", "intermediate.dense", "output.dense",
                "output.LayerNorm"},
      .structure = post_norm_structure(PositionEncoding::kLearned, true),
      .pooler = "classifier.dense",
      .pooler_is_head = true,  // ElectraClassificationHead's
      .pooler_activation = Activation::kGelu,
      .pooler_norm = nullptr,
      .token_heads_use_pooler = false,
      .classifier = "classifier.out_proj",
      .pooler_input_dropout = &BertConfig::hidden_dropout_prob,
      .qa_outputs = "qa_outputs",
      .classifier_dropout = &BertConfig::hidden_dropout_prob,
      .token_dropout = &BertConfig::hidden_dropout_prob,
      .qa_dropout = nullptr,  // ElectraForQuestionAnswering has none
      .masked_lm = {nullptr, nullptr, nullptr},
      .multiple_choice = ChoiceHead::kOwnDense,  // SequenceSummary: summary_type first, summary_use_proj
      .choice_pooler = "sequence_summary.summary",
      .choice_activation = Activation::kGelu,
      .choice_dropout = &BertConfig::summary_last_dropout,
      .zero_padding_embedding = true,
      .init_std = nullptr,
      // hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, hidden_act,
      // hidden_dropout_prob, attention_probs_dropout_prob
      .keys = {"hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size", "hidden_act",
               "hidden_dropout_prob", "attention_probs_dropout_prob"},
      .set_defaults = set_electra_defaults,
      .read_config = read_electra_config,
      .write_config = write_electra_config,
      .validate = validate_electra};
  return electra;
}

}  // namespace shmtrain::model
