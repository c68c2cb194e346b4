#include "shmtrain/io/hf_config.hpp"

#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "shmtrain/io/json_error.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/io/mapped_file.hpp"

namespace shmtrain::io {

namespace {

using Json = nlohmann::json;

std::string describe(const Json& value) {
  if (value.is_null()) return "null";
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  const char* type = value.is_number_float() ? "number" : value.is_number() ? "integer" : value.type_name();
  return fmt::format("{} {}", type, text);
}

// Typed access to one config.json object; every message names the file and the key.
class ConfigObject {
 public:
  ConfigObject(const Json& root, const std::string& source) : root_(root), source_(source) {}

  const Json* find(const char* key) const {
    const auto it = root_.find(key);
    return it == root_.end() ? nullptr : &*it;
  }

  template <typename... Args>
  [[noreturn]] void fail(const char* key, fmt::format_string<Args...> format, Args&&... args) const {
    throw InputError(fmt::format("{}: key '{}': ", source_, key) +
                     fmt::format(format, std::forward<Args>(args)...));
  }

  // Absent keys leave `out` as it is: BertConfig's initialisers are transformers' defaults.
  void read(const char* key, std::int64_t& out) const {
    const Json* value = find(key);
    if (value == nullptr) return;
    if (!value->is_number_integer()) fail(key, "must be an integer, got {}", describe(*value));
    if (value->is_number_unsigned() &&
        value->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail(key, "{} is too large", value->dump());
    }
    out = value->get<std::int64_t>();
  }
  void read(const char* key, double& out) const {
    const Json* value = find(key);
    if (value == nullptr) return;
    if (!value->is_number()) fail(key, "must be a number, got {}", describe(*value));
    out = value->get<double>();
  }
  void read(const char* key, std::string& out) const {
    const Json* value = find(key);
    if (value == nullptr) return;
    if (!value->is_string()) fail(key, "must be a string, got {}", describe(*value));
    out = value->get<std::string>();
  }

 private:
  const Json& root_;
  const std::string& source_;
};

// "0", "17": the decimal ids transformers writes as id2label keys.
bool parse_label_id(const std::string& text, std::int64_t& id) {
  if (text.empty() || text.size() > 18) return false;
  id = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    id = id * 10 + (c - '0');
  }
  return true;
}

// Checks that `by_id` (from id2label or an inverted label2id) numbers its labels 0..n-1.
std::vector<std::string> dense_labels(const std::map<std::int64_t, std::string>& by_id,
                                      const ConfigObject& config, const char* key) {
  std::vector<std::string> labels;
  for (const auto& [id, label] : by_id) {
    if (id != static_cast<std::int64_t>(labels.size())) {
      config.fail(key, "label ids must be 0..{} without gaps, but id {} is missing", by_id.size() - 1,
                  labels.size());
    }
    labels.push_back(label);
  }
  return labels;
}

std::vector<std::string> read_id2label(const Json& value, const ConfigObject& config) {
  const char* key = "id2label";
  if (!value.is_object())
    config.fail(key, "must be an object {{\"0\": \"NAME\", ...}}, got {}", describe(value));
  std::map<std::int64_t, std::string> by_id;
  for (const auto& [id_text, label] : value.items()) {
    std::int64_t id = 0;
    if (!parse_label_id(id_text, id))
      config.fail(key, "'{}' is not a label id (a non-negative integer)", id_text);
    if (!label.is_string()) config.fail(key, "label of id {} must be a string, got {}", id, describe(label));
    if (!by_id.emplace(id, label.get<std::string>()).second) config.fail(key, "id {} appears twice", id);
  }
  return dense_labels(by_id, config, key);
}

std::map<std::string, std::int64_t> read_label2id(const Json& value, const ConfigObject& config) {
  const char* key = "label2id";
  if (!value.is_object()) config.fail(key, "must be an object {{\"NAME\": 0, ...}}, got {}", describe(value));
  std::map<std::string, std::int64_t> ids;
  for (const auto& [label, id] : value.items()) {
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0) {
      config.fail(key, "id of label '{}' must be a non-negative integer, got {}", label, describe(id));
    }
    ids.emplace(label, id.get<std::int64_t>());
  }
  return ids;
}

std::vector<std::string> invert_label2id(const std::map<std::string, std::int64_t>& label2id,
                                         const ConfigObject& config) {
  std::map<std::int64_t, std::string> by_id;
  for (const auto& [label, id] : label2id) {
    if (!by_id.emplace(id, label).second) config.fail("label2id", "id {} is given to two labels", id);
  }
  return dense_labels(by_id, config, "label2id");
}

void check_inverse(const std::vector<std::string>& id2label,
                   const std::map<std::string, std::int64_t>& label2id, const ConfigObject& config) {
  for (std::size_t id = 0; id < id2label.size(); ++id) {
    const auto it = label2id.find(id2label[id]);
    if (it == label2id.end() || it->second != static_cast<std::int64_t>(id)) {
      config.fail("label2id", "does not match id2label: id2label[{}] is '{}' but label2id gives it {}", id,
                  id2label[id], it == label2id.end() ? "no id" : std::to_string(it->second));
    }
  }
  if (label2id.size() != id2label.size()) {
    config.fail("label2id", "has {} labels but id2label has {}", label2id.size(), id2label.size());
  }
}

void read_labels(const ConfigObject& config, BertConfig& out) {
  const Json* id2label = config.find("id2label");
  const Json* label2id = config.find("label2id");
  const Json* num_labels = config.find("num_labels");
  std::map<std::string, std::int64_t> ids;
  if (label2id != nullptr) ids = read_label2id(*label2id, config);

  if (id2label != nullptr) {
    out.id2label = read_id2label(*id2label, config);
    if (label2id != nullptr) check_inverse(out.id2label, ids, config);
  } else if (label2id != nullptr) {
    out.id2label = invert_label2id(ids, config);
  } else if (num_labels != nullptr) {
    std::int64_t n = 0;
    config.read("num_labels", n);
    if (n < 1) config.fail("num_labels", "must be at least 1, got {}", n);
    out.id2label.clear();
    for (std::int64_t id = 0; id < n; ++id) out.id2label.push_back(fmt::format("LABEL_{}", id));
  }
  if (num_labels != nullptr && (id2label != nullptr || label2id != nullptr)) {
    std::int64_t n = 0;
    config.read("num_labels", n);
    if (n != out.num_labels()) {
      config.fail("num_labels", "is {} but the label map has {} labels", n, out.num_labels());
    }
  }
}

void read_architectures(const ConfigObject& config, BertConfig& out) {
  const Json* value = config.find("architectures");
  if (value == nullptr) return;
  out.architectures.clear();
  if (value->is_null()) return;  // transformers' default
  if (!value->is_array()) config.fail("architectures", "must be a list of strings, got {}", describe(*value));
  for (const Json& name : *value) {
    if (!name.is_string()) config.fail("architectures", "must be a list of strings, got {}", describe(name));
    out.architectures.push_back(name.get<std::string>());
  }
}

// Keys whose transformers default is null: absent or null leave `out` unchanged.
const Json* non_null(const ConfigObject& config, const char* key) {
  const Json* value = config.find(key);
  return value == nullptr || value->is_null() ? nullptr : value;
}

void read_bert_fields(const ConfigObject& config, BertConfig& out) {
  read_architectures(config, out);
  config.read("vocab_size", out.vocab_size);
  config.read("hidden_size", out.hidden_size);
  config.read("num_hidden_layers", out.num_hidden_layers);
  config.read("num_attention_heads", out.num_attention_heads);
  config.read("intermediate_size", out.intermediate_size);
  config.read("hidden_act", out.hidden_act);
  config.read("hidden_dropout_prob", out.hidden_dropout_prob);
  config.read("attention_probs_dropout_prob", out.attention_probs_dropout_prob);
  config.read("max_position_embeddings", out.max_position_embeddings);
  config.read("type_vocab_size", out.type_vocab_size);
  config.read("initializer_range", out.initializer_range);
  config.read("layer_norm_eps", out.layer_norm_eps);
  config.read("pad_token_id", out.pad_token_id);
  config.read("position_embedding_type", out.position_embedding_type);
  if (non_null(config, "classifier_dropout") != nullptr) {
    double classifier_dropout = 0;
    config.read("classifier_dropout", classifier_dropout);
    if (classifier_dropout != out.hidden_dropout_prob) {
      config.fail(
          "classifier_dropout",
          "{} differs from hidden_dropout_prob {}; shmtrain's classifier uses hidden_dropout_prob, so set "
          "classifier_dropout to null or to the same value",
          classifier_dropout, out.hidden_dropout_prob);
    }
  }
}

// DistilBertConfig's keys and defaults (distilbert-base: 6 layers). LayerNorm eps is fixed at
// 1e-12 in DistilBERT's modules; it has no token types.
void read_distilbert_fields(const ConfigObject& config, BertConfig& out) {
  out.architectures = {"DistilBertForSequenceClassification"};
  out.num_hidden_layers = 6;
  out.type_vocab_size = 0;
  out.layer_norm_eps = 1e-12;
  read_architectures(config, out);
  config.read("vocab_size", out.vocab_size);
  config.read("dim", out.hidden_size);
  config.read("n_layers", out.num_hidden_layers);
  config.read("n_heads", out.num_attention_heads);
  config.read("hidden_dim", out.intermediate_size);
  config.read("activation", out.hidden_act);
  config.read("dropout", out.hidden_dropout_prob);
  config.read("attention_dropout", out.attention_probs_dropout_prob);
  config.read("max_position_embeddings", out.max_position_embeddings);
  config.read("initializer_range", out.initializer_range);
  config.read("pad_token_id", out.pad_token_id);
  config.read("seq_classif_dropout", out.seq_classif_dropout);
  config.read("qa_dropout", out.qa_dropout);
  if (const Json* sinusoidal = config.find("sinusoidal_pos_embds")) {
    if (!sinusoidal->is_boolean()) config.fail("sinusoidal_pos_embds", "must be true or false, got {}", describe(*sinusoidal));
    if (sinusoidal->get<bool>()) {
      config.fail("sinusoidal_pos_embds",
                  "is true: shmtrain implements learned position embeddings only (false, as distilbert-base-*)");
    }
  }
}

}  // namespace

BertConfig parse_hf_config(std::string_view json_text, const std::string& source) {
  Json root;
  try {
    root = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::parse_error& e) {
    fail_input("{}: not valid JSON: {}", source, json_error_text(e.what()));
  }
  if (!root.is_object()) fail_input("{}: must hold a JSON object, got {}", source, describe(root));
  const ConfigObject config(root, source);

  BertConfig out;
  config.read("model_type", out.model_type);
  if (out.model_type == "distilbert") {
    read_distilbert_fields(config, out);
  } else if (out.model_type == "bert") {
    read_bert_fields(config, out);
  } else {
    config.fail("model_type", "is '{}'; shmtrain reads BERT (\"bert\") and DistilBERT (\"distilbert\") configs",
                out.model_type);
  }
  if (non_null(config, "problem_type") != nullptr) {
    config.read("problem_type", out.problem_type);
    if (out.problem_type != "regression" && out.problem_type != "single_label_classification" &&
        out.problem_type != "multi_label_classification") {
      config.fail("problem_type",
                  "'{}' is not one of regression, single_label_classification, "
                  "multi_label_classification",
                  out.problem_type);
    }
  }
  read_labels(config, out);
  out.validate(source);
  return out;
}

BertConfig read_hf_config(const std::filesystem::path& path) {
  const MappedFile file(path);
  const std::span<const std::byte> bytes = file.bytes();
  return parse_hf_config(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                         path.string());
}

}  // namespace shmtrain::io
