#include "shmtrain/model/hf_config.hpp"

#include <limits>
#include <map>
#include <string>
#include <vector>

#include <fmt/ranges.h>

#include "model/architectures/architecture.hpp"
#include "config_object.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/io/json_error.hpp"
#include "shmtrain/io/json_nesting.hpp"
#include "shmtrain/io/mapped_file.hpp"

namespace shmtrain::model {

namespace {

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

std::vector<std::string> read_id2label(const ConfigJson& value, const ConfigObject& config) {
  const char* key = "id2label";
  if (!value.is_object())
    config.fail(key, "must be an object {{\"0\": \"NAME\", ...}}, got {}", describe_json(value));
  std::map<std::int64_t, std::string> by_id;
  for (const auto& [id_text, label] : value.items()) {
    std::int64_t id = 0;
    if (!parse_label_id(id_text, id))
      config.fail(key, "'{}' is not a label id (a non-negative integer)", id_text);
    if (!label.is_string())
      config.fail(key, "label of id {} must be a string, got {}", id, describe_json(label));
    if (!by_id.emplace(id, label.get<std::string>()).second) config.fail(key, "id {} appears twice", id);
  }
  return dense_labels(by_id, config, key);
}

std::map<std::string, std::int64_t> read_label2id(const ConfigJson& value, const ConfigObject& config) {
  const char* key = "label2id";
  if (!value.is_object())
    config.fail(key, "must be an object {{\"NAME\": 0, ...}}, got {}", describe_json(value));
  std::map<std::string, std::int64_t> ids;
  for (const auto& [label, id] : value.items()) {
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0) {
      config.fail(key, "id of label '{}' must be a non-negative integer, got {}", label, describe_json(id));
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
  const ConfigJson* id2label = config.find("id2label");
  const ConfigJson* label2id = config.find("label2id");
  const ConfigJson* num_labels = config.find("num_labels");
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
    if (n > ConfigLimits::kLabels)
      config.fail("num_labels", "is {}; shmtrain takes at most {}", n, ConfigLimits::kLabels);
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
  const ConfigJson* value = config.find("architectures");
  if (value == nullptr) return;
  out.architectures.clear();
  if (value->is_null()) return;  // transformers' default
  if (!value->is_array())
    config.fail("architectures", "must be a list of strings, got {}", describe_json(*value));
  for (const ConfigJson& name : *value) {
    if (!name.is_string())
      config.fail("architectures", "must be a list of strings, got {}", describe_json(name));
    out.architectures.push_back(name.get<std::string>());
  }
}

// The keys every family has, under the family's names.
void read_common_fields(const ConfigObject& config, const Architecture& arch, BertConfig& out) {
  const ConfigKeys& k = arch.keys;
  read_architectures(config, out);
  config.read("vocab_size", out.vocab_size);
  config.read(k.hidden_size, out.hidden_size);
  config.read(k.num_hidden_layers, out.num_hidden_layers);
  config.read(k.num_attention_heads, out.num_attention_heads);
  config.read(k.intermediate_size, out.intermediate_size);
  config.read(k.hidden_act, out.hidden_act);
  config.read(k.hidden_dropout_prob, out.hidden_dropout_prob);
  config.read(k.attention_probs_dropout_prob, out.attention_probs_dropout_prob);
  config.read("max_position_embeddings", out.max_position_embeddings);
  config.read("initializer_range", out.initializer_range);
  config.read("pad_token_id", out.pad_token_id);
  config.read("tie_word_embeddings", out.tie_word_embeddings);
}

// config.json's auto_map names the model's own Python classes (trust_remote_code): the model
// may differ from transformers' class of its model_type (jina-embeddings-v3 says xlm-roberta and
// is rotary with LoRA adapters), so shmtrain, which runs no remote code and implements each
// model_type as transformers does, refuses it rather than train something else. No model with
// an auto_map is known to equal its native model_type exactly: the list is empty.
void refuse_custom_code(const ConfigObject& config, const ConfigJson& root, const std::string& model_type) {
  const auto found = root.find("auto_map");
  if (found == root.end() || found->is_null()) return;
  std::vector<std::string> classes;
  if (found->is_object()) {
    for (const auto& [auto_class, target] : found->items()) {
      const ConfigJson& name = target.is_array() && !target.empty() ? target.front() : target;
      classes.push_back(auto_class + " -> " + (name.is_string() ? name.get<std::string>() : name.dump()));
    }
  }
  config.fail("auto_map",
              "maps {} to the model's own code (trust_remote_code); shmtrain runs no remote code and would train it "
              "as transformers' '{}', which that code may change (rotary positions, adapters, another head). If the "
              "model is exactly transformers' {} architecture, remove auto_map from config.json",
              classes.empty() ? found->dump() : fmt::format("{}", fmt::join(classes, ", ")), model_type, model_type);
}

}  // namespace

BertConfig parse_hf_config(std::string_view json_text, const std::string& source) {
  io::check_json_nesting(json_text, source);
  // The key being read, by depth, so that a number the parser cannot hold (1e400) is named by
  // its key as every other bad value is.
  std::vector<std::string> keys;
  const ConfigJson::parser_callback_t note_key = [&](int depth, nlohmann::json::parse_event_t event,
                                                     ConfigJson& parsed) {
    if (event == nlohmann::json::parse_event_t::key && depth >= 1) {
      keys.resize(static_cast<std::size_t>(depth));
      keys.back() = parsed.get<std::string>();
    }
    return true;
  };
  ConfigJson root;
  try {
    root = ConfigJson::parse(json_text.begin(), json_text.end(), note_key);
  } catch (const ConfigJson::exception& e) {  // parse_error, and out_of_range for 1e400
    const std::string what = e.what();
    const std::size_t overflow = what.find("number overflow parsing '");
    if (overflow != std::string::npos && !keys.empty()) {
      const std::size_t begin = overflow + 25;
      const std::string number = what.substr(begin, what.find('\'', begin) - begin);
      fail_input("{}: key '{}': number {} is out of range (a double holds at most about 1.8e308)", source,
                 fmt::join(keys, "."), number);
    }
    fail_input("{}: not valid JSON: {}", source, io::json_error_text(what));
  }
  if (!root.is_object()) fail_input("{}: must hold a JSON object, got {}", source, describe_json(root));
  const ConfigObject config(root, source);

  BertConfig out;
  config.read("model_type", out.model_type);
  const Architecture* arch = find_architecture(out.model_type);
  if (arch == nullptr) {
    config.fail("model_type", "is '{}'; shmtrain reads {} configs", out.model_type, supported_model_types());
  }
  refuse_custom_code(config, root, out.model_type);
  arch->set_defaults(out);
  read_common_fields(config, *arch, out);
  arch->read_config(config, out);
  if (config.non_null("problem_type") != nullptr) {
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
  const io::MappedFile file(path);
  const std::span<const std::byte> bytes = file.bytes();
  return parse_hf_config(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                         path.string());
}

}  // namespace shmtrain::model
