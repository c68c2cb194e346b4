#include "shmtrain/model/hf_config.hpp"

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "model/architectures/architecture.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/io/atomic_file.hpp"

namespace shmtrain::model {

std::string hf_config_to_json(const BertConfig& config, std::string_view transformers_version) {
  using Json = nlohmann::ordered_json;
  // transformers writes json.dumps(..., indent=2, sort_keys=True): the std::map sorts the
  // top-level keys; id2label keeps numeric id order, as Python sorts its integer keys.
  ConfigFields fields;
  fields["architectures"] = config.architectures;
  fields["model_type"] = config.model_type;
  fields["initializer_range"] = config.initializer_range;
  fields["max_position_embeddings"] = config.max_position_embeddings;
  fields["pad_token_id"] = config.pad_token_id;
  // shmtrain's checkpoints are F32, said in both spellings: transformers 5 reads `dtype`, 4.x
  // `torch_dtype` (each keeps the other as a plain attribute).
  fields["dtype"] = "float32";
  fields["torch_dtype"] = "float32";
  fields["vocab_size"] = config.vocab_size;
  // PretrainedConfig's default (true) is left out, as save_pretrained leaves defaults out.
  if (!config.tie_word_embeddings) fields["tie_word_embeddings"] = false;
  const Architecture& arch = architecture_of(config);
  const ConfigKeys& k = arch.keys;
  fields[k.hidden_act] = config.hidden_act;
  fields[k.attention_probs_dropout_prob] = config.attention_probs_dropout_prob;
  fields[k.hidden_size] = config.hidden_size;
  fields[k.hidden_dropout_prob] = config.hidden_dropout_prob;
  fields[k.intermediate_size] = config.intermediate_size;
  fields[k.num_attention_heads] = config.num_attention_heads;
  fields[k.num_hidden_layers] = config.num_hidden_layers;
  arch.write_config(config, fields);
  if (!config.problem_type.empty()) fields["problem_type"] = config.problem_type;
  if (!transformers_version.empty()) fields["transformers_version"] = std::string(transformers_version);

  Json id2label = Json::object();
  std::map<std::string, std::int64_t> label2id;
  for (std::size_t id = 0; id < config.id2label.size(); ++id) {
    id2label[std::to_string(id)] = config.id2label[id];
    if (!label2id.emplace(config.id2label[id], static_cast<std::int64_t>(id)).second) {
      throw Error(fmt::format("config.json: label '{}' appears twice in id2label; label2id cannot invert it",
                              config.id2label[id]));
    }
  }
  fields["id2label"] = std::move(id2label);
  fields["label2id"] = label2id;

  Json root = Json::object();
  for (auto& [key, value] : fields) root[key] = std::move(value);
  return root.dump(2, ' ', /*ensure_ascii=*/true) + "\n";
}

void write_hf_config(const std::filesystem::path& path, const BertConfig& config,
                     std::string_view transformers_version) {
  config.validate(path.string());
  io::write_file_atomically(path, hf_config_to_json(config, transformers_version));
}

}  // namespace shmtrain::model
