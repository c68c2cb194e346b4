#include "shmtrain/model/sentence/sentence_folder.hpp"

#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/atomic_file.hpp"

namespace shmtrain::model::sentence {
namespace {

void write_json(const std::filesystem::path& path, const nlohmann::ordered_json& json) {
  io::write_file_atomically(path, json.dump(2) + "\n");
}

}  // namespace

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
             {{"__version__", {{"sentence_transformers", "5.1.0"}}},
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
