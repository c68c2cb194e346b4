#include "shmtrain/model/bert_config.hpp"

#include "shmtrain/common/error.hpp"

namespace shmtrain {

void BertConfig::validate(const std::string& source) const {
  auto positive = [&](const char* key, std::int64_t value) {
    if (value <= 0) fail_input("{}: {} must be positive, got {}", source, key, value);
  };
  positive("vocab_size", vocab_size);
  positive("hidden_size", hidden_size);
  positive("num_hidden_layers", num_hidden_layers);
  positive("num_attention_heads", num_attention_heads);
  positive("intermediate_size", intermediate_size);
  positive("max_position_embeddings", max_position_embeddings);
  positive("type_vocab_size", type_vocab_size);
  if (hidden_size % num_attention_heads != 0) {
    fail_input("{}: hidden_size {} is not a multiple of num_attention_heads {}", source, hidden_size,
               num_attention_heads);
  }
  if (hidden_act != "gelu") {
    fail_input("{}: hidden_act '{}' is not supported (shmtrain implements \"gelu\", the exact erf form)", source,
               hidden_act);
  }
  if (position_embedding_type != "absolute") {
    fail_input("{}: position_embedding_type '{}' is not supported (only \"absolute\")", source,
               position_embedding_type);
  }
  if (hidden_dropout_prob < 0 || hidden_dropout_prob >= 1) {
    fail_input("{}: hidden_dropout_prob must be in [0, 1), got {}", source, hidden_dropout_prob);
  }
  if (attention_probs_dropout_prob < 0 || attention_probs_dropout_prob >= 1) {
    fail_input("{}: attention_probs_dropout_prob must be in [0, 1), got {}", source, attention_probs_dropout_prob);
  }
  if (!(layer_norm_eps > 0)) fail_input("{}: layer_norm_eps must be positive, got {}", source, layer_norm_eps);
  if (!(initializer_range > 0)) {
    fail_input("{}: initializer_range must be positive, got {}", source, initializer_range);
  }
  if (pad_token_id < 0 || pad_token_id >= vocab_size) {
    fail_input("{}: pad_token_id {} is outside the vocabulary (vocab_size {})", source, pad_token_id, vocab_size);
  }
  if (id2label.empty()) fail_input("{}: the model has no labels (id2label is empty)", source);
}

}  // namespace shmtrain
