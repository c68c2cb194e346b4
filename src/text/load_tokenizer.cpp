// How a model folder's tokenizer is read: BERT's files (vocab.txt, or a tokenizer.json that is
// BERT's WordPiece pipeline) with the casing rules tokenizer_files.hpp resolves and the user's
// --do_lower_case, everything else as its files say. Both are HfTokenizer pipelines.
#include <fstream>

#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/json_nesting.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"

namespace shmtrain::text {
namespace {

namespace fs = std::filesystem;

std::string type_of(const nlohmann::json& j, const char* key) {
  if (!j.contains(key) || !j[key].is_object()) return "";
  const auto it = j[key].find("type");
  return it != j[key].end() && it->is_string() ? it->get<std::string>() : "";
}

// A tokenizer.json made of BertNormalizer, BertPreTokenizer and WordPiece.
bool is_bert_wordpiece(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return false;  // the reader that follows names the problem
  const std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  io::check_json_nesting(contents, file.string());
  const nlohmann::json j = nlohmann::json::parse(contents, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return false;
  const std::string model = type_of(j, "model");
  const bool wordpiece = model == "WordPiece" || (model.empty() && j.contains("model") && j["model"].is_object() &&
                                                  j["model"].contains("continuing_subword_prefix") &&
                                                  !j["model"].contains("merges"));
  return wordpiece && type_of(j, "normalizer") == "BertNormalizer" && type_of(j, "pre_tokenizer") == "BertPreTokenizer";
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

}  // namespace

std::unique_ptr<Tokenizer> load_tokenizer(const fs::path& path, std::optional<bool> do_lower_case, bool pre_split_words) {
  std::error_code ec;
  bool bert = false;
  if (fs::is_directory(path, ec)) {
    if (is_file(path / "tokenizer.json")) bert = is_bert_wordpiece(path / "tokenizer.json");
    else bert = !is_file(path / "merges.txt") && !is_file(path / "sentencepiece.bpe.model") && !is_file(path / "spm.model");
  } else {
    const std::string ext = path.extension().string();
    bert = ext == ".txt" || (ext == ".json" && is_bert_wordpiece(path)) || (ext != ".json" && ext != ".model");
  }
  if (bert) return std::make_unique<HfTokenizer>(HfTokenizer::load_bert(path, do_lower_case));
  if (do_lower_case) {
    fail_input("{}: --do_lower_case applies to BERT WordPiece vocabularies; this tokenizer's own normalizer decides "
               "casing (drop the flag)",
               path.string());
  }
  return std::make_unique<HfTokenizer>(HfTokenizer::load(path, pre_split_words));
}

const std::vector<std::string>& tokenizer_file_names() {
  static const std::vector<std::string> names = {"vocab.txt",  "tokenizer.json", "tokenizer_config.json",
                                                 "special_tokens_map.json", "vocab.json", "merges.txt",
                                                 "sentencepiece.bpe.model", "spm.model"};
  return names;
}

}  // namespace shmtrain::text
