#include "shmtrain/model/bert_config.hpp"

#include "shmtrain/common/error.hpp"

namespace shmtrain {

std::string BertConfig::architecture() const {
  const char* base = is_distilbert() ? "DistilBert" : "Bert";
  const char* head_name = head == ModelHead::kQuestionAnswering ? "ForQuestionAnswering" : "ForSequenceClassification";
  return std::string(base) + head_name;
}

void BertConfig::validate(const std::string& source) const {
  // DistilBERT's keys, for messages about a DistilBERT config.
  const bool distil = is_distilbert();
  auto key = [&](const char* bert, const char* distilbert) { return distil ? distilbert : bert; };
  auto positive = [&](const char* name, std::int64_t value) {
    if (value <= 0) fail_input("{}: {} must be positive, got {}", source, name, value);
  };
  if (model_type != "bert" && model_type != "distilbert") {
    fail_input("{}: model_type '{}' is not supported (\"bert\" or \"distilbert\")", source, model_type);
  }
  positive("vocab_size", vocab_size);
  positive(key("hidden_size", "dim"), hidden_size);
  positive(key("num_hidden_layers", "n_layers"), num_hidden_layers);
  positive(key("num_attention_heads", "n_heads"), num_attention_heads);
  positive(key("intermediate_size", "hidden_dim"), intermediate_size);
  positive("max_position_embeddings", max_position_embeddings);
  if (distil) {
    if (type_vocab_size != 0) fail_input("{}: DistilBERT has no token type embeddings (type_vocab_size 0)", source);
  } else {
    positive("type_vocab_size", type_vocab_size);
  }
  if (hidden_size % num_attention_heads != 0) {
    fail_input("{}: {} {} is not a multiple of {} {}", source, key("hidden_size", "dim"), hidden_size,
               key("num_attention_heads", "n_heads"), num_attention_heads);
  }
  if (hidden_act != "gelu") {
    fail_input("{}: {} '{}' is not supported (shmtrain implements \"gelu\", the exact erf form)", source,
               key("hidden_act", "activation"), hidden_act);
  }
  if (position_embedding_type != "absolute") {
    fail_input("{}: position_embedding_type '{}' is not supported (only \"absolute\")", source,
               position_embedding_type);
  }
  auto probability = [&](const char* name, double p) {
    if (p < 0 || p >= 1) fail_input("{}: {} must be in [0, 1), got {}", source, name, p);
  };
  probability(key("hidden_dropout_prob", "dropout"), hidden_dropout_prob);
  probability(key("attention_probs_dropout_prob", "attention_dropout"), attention_probs_dropout_prob);
  probability("seq_classif_dropout", seq_classif_dropout);
  probability("qa_dropout", qa_dropout);
  if (!(layer_norm_eps > 0)) fail_input("{}: layer_norm_eps must be positive, got {}", source, layer_norm_eps);
  if (!(initializer_range > 0)) {
    fail_input("{}: initializer_range must be positive, got {}", source, initializer_range);
  }
  if (pad_token_id < 0 || pad_token_id >= vocab_size) {
    fail_input("{}: pad_token_id {} is outside the vocabulary (vocab_size {})", source, pad_token_id, vocab_size);
  }
  if (id2label.empty()) fail_input("{}: the model has no labels (id2label is empty)", source);
  if (head == ModelHead::kQuestionAnswering && num_labels() != 2) {
    fail_input("{}: question answering needs num_labels 2 (the start and end logits of qa_outputs), but the "
               "config has {} labels",
               source, num_labels());
  }
}

}  // namespace shmtrain
