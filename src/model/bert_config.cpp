#include "shmtrain/model/bert_config.hpp"

#include <algorithm>

#include "architectures/architecture.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::model {

std::string BertConfig::architecture() const {
  if (head == ModelHead::kSentenceEmbedding) return std::string(architecture_of(*this).class_prefix) + "Model";
  const char* head_name = head == ModelHead::kQuestionAnswering     ? "ForQuestionAnswering"
                          : head == ModelHead::kTokenClassification ? "ForTokenClassification"
                          : head == ModelHead::kMaskedLm            ? "ForMaskedLM"
                          : head == ModelHead::kMultipleChoice      ? "ForMultipleChoice"
                                                                     : "ForSequenceClassification";
  return std::string(architecture_of(*this).class_prefix) + head_name;
}

std::int64_t BertConfig::head_outputs() const {
  if (head == ModelHead::kMultipleChoice) return 1;
  if (head == ModelHead::kMaskedLm) return vocab_size;
  return num_labels();
}

std::int64_t BertConfig::max_sequence_length() const { return usable_positions(*this); }

bool BertConfig::has_position_table() const {
  return architecture_of(*this).structure.positions != PositionEncoding::kRotary && position_biased_input;
}

bool BertConfig::c2p() const {
  return std::find(pos_att_type.begin(), pos_att_type.end(), "c2p") != pos_att_type.end();
}

bool BertConfig::p2c() const {
  return std::find(pos_att_type.begin(), pos_att_type.end(), "p2c") != pos_att_type.end();
}

std::int64_t BertConfig::max_relative_distance() const {
  return max_relative_positions < 1 ? max_position_embeddings : max_relative_positions;
}

std::int64_t BertConfig::relative_span() const {
  return position_buckets > 0 ? position_buckets : max_relative_distance();
}

std::string BertConfig::base_prefix() const { return architecture_of(*this).base_prefix; }

std::int64_t BertConfig::attention_window(std::int64_t layer) const {
  bool sliding = false;
  if (!layer_types.empty()) {
    sliding = layer_types.at(static_cast<std::size_t>(layer)) == "sliding_attention";
  } else if (architecture_of(*this).structure.positions == PositionEncoding::kRotary) {
    sliding = layer % global_attn_every_n_layers != 0;  // the legacy spelling's pattern
  }
  return sliding ? local_attention / 2 : -1;
}

double BertConfig::rope_theta(std::int64_t layer) const {
  return attention_window(layer) < 0 ? global_rope_theta : local_rope_theta;
}

void BertConfig::validate(const std::string& source) const {
  const Architecture* arch = find_architecture(model_type);
  if (arch == nullptr) {
    fail_input("{}: model_type '{}' is not supported (shmtrain trains {})", source, model_type,
               supported_model_types());
  }
  const ConfigKeys& key = arch->keys;  // the family's names, for messages
  auto positive = [&](const char* name, std::int64_t value) {
    if (value <= 0) fail_input("{}: {} must be positive, got {}", source, name, value);
  };
  positive("vocab_size", vocab_size);
  positive(key.hidden_size, hidden_size);
  positive(key.num_hidden_layers, num_hidden_layers);
  positive(key.num_attention_heads, num_attention_heads);
  positive(key.intermediate_size, intermediate_size);
  positive("max_position_embeddings", max_position_embeddings);
  auto at_most = [&](const char* name, std::int64_t value, std::int64_t limit) {
    if (value > limit) fail_input("{}: {} is {}; shmtrain takes at most {}", source, name, value, limit);
  };
  at_most("vocab_size", vocab_size, ConfigLimits::kVocabSize);
  at_most(key.hidden_size, hidden_size, ConfigLimits::kHiddenSize);
  at_most(key.num_hidden_layers, num_hidden_layers, ConfigLimits::kLayers);
  at_most(key.num_attention_heads, num_attention_heads, hidden_size);
  at_most(key.intermediate_size, intermediate_size, ConfigLimits::kIntermediateSize);
  at_most("max_position_embeddings", max_position_embeddings, ConfigLimits::kPositions);
  at_most("type_vocab_size", type_vocab_size, ConfigLimits::kTokenTypes);
  at_most("num_labels", num_labels(), ConfigLimits::kLabels);
  // Every factor is bounded above, so the count cannot overflow.
  const std::int64_t per_layer = 4 * hidden_size * hidden_size + 2 * hidden_size * intermediate_size;
  const std::int64_t parameters =
      (vocab_size + max_position_embeddings + type_vocab_size + num_labels() + hidden_size) * hidden_size +
      num_hidden_layers * per_layer;
  if (parameters > ConfigLimits::kParameters) {
    fail_input("{}: the model would have about {} parameters ({} GiB in fp32); shmtrain takes at most {}",
               source, parameters, parameters * 4 >> 30, ConfigLimits::kParameters);
  }
  arch->validate(*this, source);
  if (hidden_size % num_attention_heads != 0) {
    fail_input("{}: {} {} is not a multiple of {} {}", source, key.hidden_size, hidden_size,
               key.num_attention_heads, num_attention_heads);
  }
  if (hidden_act != "gelu") {
    fail_input("{}: {} '{}' is not supported (shmtrain implements \"gelu\", the exact erf form)", source,
               key.hidden_act, hidden_act);
  }
  if (position_embedding_type != "absolute") {
    fail_input("{}: position_embedding_type '{}' is not supported (only \"absolute\")", source,
               position_embedding_type);
  }
  auto probability = [&](const char* name, double p) {
    if (p < 0 || p >= 1) fail_input("{}: {} must be in [0, 1), got {}", source, name, p);
  };
  probability(key.hidden_dropout_prob, hidden_dropout_prob);
  probability(key.attention_probs_dropout_prob, attention_probs_dropout_prob);
  probability("seq_classif_dropout", seq_classif_dropout);
  probability("qa_dropout", qa_dropout);
  if (!(layer_norm_eps > 0))
    fail_input("{}: layer_norm_eps must be positive, got {}", source, layer_norm_eps);
  if (!(initializer_range > 0)) {
    fail_input("{}: initializer_range must be positive, got {}", source, initializer_range);
  }
  if (pad_token_id < 0 || pad_token_id >= vocab_size) {
    fail_input("{}: pad_token_id {} is outside the vocabulary (vocab_size {})", source, pad_token_id,
               vocab_size);
  }
  if (id2label.empty()) fail_input("{}: the model has no labels (id2label is empty)", source);
  if (head == ModelHead::kQuestionAnswering && num_labels() != 2) {
    fail_input(
        "{}: question answering needs num_labels 2 (the start and end logits of qa_outputs), but the "
        "config has {} labels",
        source, num_labels());
  }
  if (head == ModelHead::kMaskedLm && arch->masked_lm.dense == nullptr) {
    fail_input("{}: masked-LM training of {} models is not supported ({}ForMaskedLM); shmtrain trains the masked-LM "
               "heads of BERT, DistilBERT, RoBERTa, XLM-R, CamemBERT and ModernBERT",
               source, arch->display_name, arch->class_prefix);
  }
  if (head == ModelHead::kMaskedLm && !tie_word_embeddings) {
    fail_input("{}: tie_word_embeddings false is not supported: shmtrain's masked-LM decoder is the word-embedding "
               "matrix, as in every released checkpoint of these families",
               source);
  }
  if (head == ModelHead::kMultipleChoice && arch->multiple_choice == ChoiceHead::kNone) {
    fail_input("{}: multiple choice with {} models is not supported ({}ForMultipleChoice)", source,
               arch->display_name, arch->class_prefix);
  }
}

}  // namespace shmtrain::model
