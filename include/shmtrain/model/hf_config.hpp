#pragma once
// Hugging Face config.json <-> BertConfig. Keys, defaults and layout follow transformers'
// BertConfig / DistilBertConfig / PretrainedConfig, so a folder written by shmtrain loads with
// `AutoModelForSequenceClassification.from_pretrained(dir)` (or ...ForQuestionAnswering) and
// the other way round.
#include <filesystem>
#include <string>
#include <string_view>

#include "shmtrain/model/bert_config.hpp"

namespace shmtrain::model {

// Reads config.json. Rules:
//   - keys shmtrain does not use are ignored (hub configs carry many); absent keys take
//     transformers' BertConfig defaults (BertConfig's initialisers);
//   - a key of the wrong JSON type (a string for hidden_size, 64.5 for an integer, null for
//     a required value) is an InputError naming the file and the key;
//   - labels: id2label {"0": "NEG", "1": "POS"} with ids exactly 0..n-1; label2id, when
//     present, must be its inverse; without id2label, label2id or num_labels gives the labels
//     (num_labels n -> "LABEL_0".."LABEL_<n-1>", as transformers does); num_labels beside
//     id2label must agree with it;
//   - model_type, when present, must name a family shmtrain trains ("bert", "distilbert");
//     the family's file in src/model/architectures/ gives its keys and defaults (DistilBERT:
//     dim, n_layers, n_heads, hidden_dim, activation, dropout, attention_dropout,
//     seq_classif_dropout, qa_dropout, and sinusoidal_pos_embds true is refused; BERT:
//     classifier_dropout must be null or equal to hidden_dropout_prob, since shmtrain's head
//     uses hidden_dropout_prob and silently training with another rate would be wrong);
//   - problem_type: null, "regression", "single_label_classification" or
//     "multi_label_classification" (as transformers checks);
// then BertConfig::validate. Throws InputError "<path>: ..." when the file is missing or
// invalid.
BertConfig read_hf_config(const std::filesystem::path& path);
// The same from text; `source` names it in messages.
BertConfig parse_hf_config(std::string_view json_text, const std::string& source);

// config.json text as transformers' save_pretrained writes it: keys sorted, indent 2, ASCII
// only, trailing newline; architectures, model_type, every BertConfig field (DistilBERT: every
// DistilBertConfig field, sinusoidal_pos_embds false), classifier_dropout null and use_cache
// true (BERT), torch_dtype "float32", id2label / label2id, problem_type when set and
// transformers_version when given.
// REQUIRES: config.validate() passes and label names are distinct (label2id must invert id2label).
std::string hf_config_to_json(const BertConfig& config, std::string_view transformers_version = {});
// Writes hf_config_to_json atomically (io/atomic_file.hpp).
void write_hf_config(const std::filesystem::path& path, const BertConfig& config,
                     std::string_view transformers_version = {});

}  // namespace shmtrain::model
