#include "shmtrain/model/sentence/sentence_folder.hpp"

#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/io/json_error.hpp"
#include "shmtrain/io/json_nesting.hpp"
#include "shmtrain/io/mapped_file.hpp"

namespace shmtrain::model::sentence {
namespace {

// The sentence-transformers release whose folder format shmtrain writes.
constexpr const char* kSentenceTransformersVersion = "5.1.0";

void write_json(const std::filesystem::path& path, const nlohmann::ordered_json& json) {
  io::write_file_atomically(path, json.dump(2) + "\n");
}

nlohmann::json read_json(const std::filesystem::path& path) {
  const io::MappedFile file(path);
  const std::string_view text(reinterpret_cast<const char*>(file.bytes().data()), file.bytes().size());
  io::check_json_nesting(text, path.string());
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail_input("{}: not valid JSON: {}", path.string(), io::json_error_text(e.what()));
  }
}

bool type_is(const std::string& type, const char* module) {
  return type.size() >= std::string_view(module).size() && type.ends_with(module);
}

// The classic pooling_mode_* flags or 5.4+'s pooling_mode string: exactly one mode.
PoolingMode pooling_of(const nlohmann::json& config, const std::filesystem::path& path) {
  if (config.contains("pooling_mode") && config["pooling_mode"].is_string()) {
    return parse_pooling_mode(config["pooling_mode"].get<std::string>(), path.string() + ": pooling_mode");
  }
  std::optional<PoolingMode> mode;
  const std::pair<const char*, PoolingMode> flags[] = {{"pooling_mode_cls_token", PoolingMode::kCls},
                                                        {"pooling_mode_mean_tokens", PoolingMode::kMean},
                                                        {"pooling_mode_max_tokens", PoolingMode::kMax},
                                                        {"pooling_mode_lasttoken", PoolingMode::kLastToken}};
  for (const auto& [key, value] : flags) {
    if (!config.value(key, false)) continue;
    if (mode) fail_input("{}: more than one pooling mode is on; shmtrain pools one way at a time", path.string());
    mode = value;
  }
  for (const char* unsupported : {"pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens"}) {
    if (config.value(unsupported, false)) fail_input("{}: {} is not a pooling shmtrain has", path.string(), unsupported);
  }
  if (!mode) fail_input("{}: no pooling mode is on (pooling_mode_mean_tokens, ...)", path.string());
  return *mode;
}

}  // namespace

std::optional<SentenceFolder> read_sentence_transformers_folder(const std::filesystem::path& folder) {
  const std::filesystem::path modules_path = folder / "modules.json";
  if (!std::filesystem::is_regular_file(modules_path)) return std::nullopt;
  const nlohmann::json modules = read_json(modules_path);
  if (!modules.is_array()) fail_input("{}: expected a list of modules", modules_path.string());
  SentenceFolder out;
  bool pooled = false;
  for (const nlohmann::json& module : modules) {
    const std::string type = module.value("type", "");
    const std::string path = module.value("path", "");
    if (type_is(type, "Transformer")) {
      if (!path.empty()) {
        fail_input("{}: the encoder is in the subfolder '{}'; pass --model_name_or_path {}", modules_path.string(), path,
                   (folder / path).string());
      }
    } else if (type_is(type, "Pooling")) {
      const std::filesystem::path config_path = folder / path / "config.json";
      const nlohmann::json config = read_json(config_path);
      out.pooling = pooling_of(config, config_path);
      out.embedding_dimension =
          config.value("embedding_dimension", config.value("word_embedding_dimension", std::int64_t{0}));
      pooled = true;
    } else if (type_is(type, "Normalize")) {
      out.normalize = true;
    } else {
      fail_input("{}: module '{}' ({}) is not one shmtrain runs (Transformer, Pooling, Normalize)",
                 modules_path.string(), module.value("name", path), type);
    }
  }
  if (!pooled) fail_input("{}: no Pooling module", modules_path.string());
  const std::filesystem::path bert_config = folder / "sentence_bert_config.json";
  if (std::filesystem::is_regular_file(bert_config)) {
    const nlohmann::json config = read_json(bert_config);
    if (config.contains("max_seq_length") && config["max_seq_length"].is_number_integer()) {
      out.max_seq_length = config["max_seq_length"].get<std::int64_t>();
    }
    if (config.contains("do_lower_case") && config["do_lower_case"].is_boolean()) {
      out.do_lower_case = config["do_lower_case"].get<bool>();
    }
  }
  return out;
}

void write_cross_encoder_files(const std::filesystem::path& folder, bool one_score) {
  const std::filesystem::path config_path = folder / "config.json";
  std::ifstream in(config_path);
  nlohmann::ordered_json config = nlohmann::ordered_json::parse(in);
  // CrossEncoder's default activation: Sigmoid on one score, Identity on classes' logits.
  const char* sigmoid = one_score ? "torch.nn.modules.activation.Sigmoid" : "torch.nn.modules.linear.Identity";
  config["sentence_transformers"] = {{"activation_fn", sigmoid}, {"version", kSentenceTransformersVersion}};
  write_json(config_path, config);
  write_json(folder / "config_sentence_transformers.json",
             {{"__version__", {{"sentence_transformers", kSentenceTransformersVersion}}},
              {"model_type", "CrossEncoder"},
              {"activation_fn", sigmoid},
              {"prompts", nlohmann::ordered_json::object()},
              {"default_prompt_name", nullptr}});
}

void write_sentence_transformers_files(const std::filesystem::path& folder, const SentenceOptions& options,
                                       std::int64_t width) {
  nlohmann::ordered_json modules = nlohmann::ordered_json::array();
  auto add = [&](const char* path, const char* type) {
    const auto idx = modules.size();
    modules.push_back({{"idx", idx}, {"name", std::to_string(idx)}, {"path", path}, {"type", type}});
  };
  add("", "sentence_transformers.models.Transformer");
  add("1_Pooling", "sentence_transformers.models.Pooling");
  if (options.normalize) add("2_Normalize", "sentence_transformers.models.Normalize");
  write_json(folder / "modules.json", modules);

  write_json(folder / "config_sentence_transformers.json",
             {{"__version__", {{"sentence_transformers", kSentenceTransformersVersion}}},
              {"model_type", "SentenceTransformer"},
              {"prompts", {{"query", ""}, {"document", ""}}},
              {"default_prompt_name", nullptr},
              {"similarity_fn_name", "cosine"}});
  write_json(folder / "sentence_bert_config.json",
             {{"max_seq_length", options.max_seq_length}, {"do_lower_case", options.do_lower_case}});

  std::error_code error;
  std::filesystem::create_directories(folder / "1_Pooling", error);
  if (error) throw SystemError("create " + (folder / "1_Pooling").string(), error.value());
  const PoolingMode mode = options.pooling;
  write_json(folder / "1_Pooling" / "config.json",
             {{"word_embedding_dimension", width},
              {"pooling_mode_cls_token", mode == PoolingMode::kCls},
              {"pooling_mode_mean_tokens", mode == PoolingMode::kMean},
              {"pooling_mode_max_tokens", mode == PoolingMode::kMax},
              {"pooling_mode_mean_sqrt_len_tokens", false},
              {"pooling_mode_weightedmean_tokens", false},
              {"pooling_mode_lasttoken", mode == PoolingMode::kLastToken},
              {"include_prompt", true}});
  if (options.normalize) {
    std::filesystem::create_directories(folder / "2_Normalize", error);
    if (error) throw SystemError("create " + (folder / "2_Normalize").string(), error.value());
  }
}

}  // namespace shmtrain::model::sentence
