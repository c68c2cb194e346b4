#pragma once
// The architecture hyper-parameters of a BERT-class model, as Hugging Face's BertConfig /
// config.json names them. io/hf_config.hpp reads and writes config.json into this struct.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace shmtrain {

struct BertConfig {
  std::string model_type = "bert";
  std::vector<std::string> architectures = {"BertForSequenceClassification"};
  std::int64_t vocab_size = 30522;
  std::int64_t hidden_size = 768;
  std::int64_t num_hidden_layers = 12;
  std::int64_t num_attention_heads = 12;
  std::int64_t intermediate_size = 3072;
  std::string hidden_act = "gelu";  // the exact erf form; the only one supported
  double hidden_dropout_prob = 0.1;
  double attention_probs_dropout_prob = 0.1;
  std::int64_t max_position_embeddings = 512;
  std::int64_t type_vocab_size = 2;
  double initializer_range = 0.02;
  double layer_norm_eps = 1e-12;
  std::int64_t pad_token_id = 0;
  std::string position_embedding_type = "absolute";  // the only one supported
  std::string problem_type;                          // "", "regression", "single_label_classification"
  // Classification head: label names by id. num_labels() == id2label.size(); 1 = regression.
  std::vector<std::string> id2label = {"LABEL_0", "LABEL_1"};

  std::int64_t num_labels() const { return static_cast<std::int64_t>(id2label.size()); }
  std::int64_t head_dim() const { return hidden_size / num_attention_heads; }
  bool is_regression() const { return num_labels() == 1; }

  // REQUIRES nothing; throws InputError naming the key when a value is out of range or two
  // values disagree (hidden_size not divisible by num_attention_heads, ...). `source` names
  // the file for the message.
  void validate(const std::string& source) const;
};

}  // namespace shmtrain
