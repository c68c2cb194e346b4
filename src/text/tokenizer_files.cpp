#include "shmtrain/text/tokenizer_files.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <limits>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/json_nesting.hpp"

namespace shmtrain::text {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Settings a file gave explicitly; unset ones fall through to the next source.
struct FileSettings {
  std::optional<bool> lowercase;
  std::string lowercase_origin;
  std::optional<bool> strip_accents;
  bool strip_accents_set = false;  // strip_accents: null counts as set (= follow lowercase)
  std::optional<bool> handle_chinese_chars;
  std::optional<bool> clean_text;
};

json read_json(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_input("cannot open {}: check that it exists and is readable", path.string());
  const std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  io::check_json_nesting(contents, path.string());
  try {
    return json::parse(contents);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 1e400
    fail_input("{}: not valid JSON: {}", path.string(), e.what());
  }
}

std::optional<bool> get_bool(const json& object, const char* key, const fs::path& file) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::nullopt;
  if (!it->is_boolean()) fail_input("{}: {} must be true or false, got {}", file.string(), key, it->dump());
  return it->get<bool>();
}

// A token given as "text" or as an AddedToken object {"content": "text", ...}.
std::optional<std::string> get_token(const json& value, const char* key, const fs::path& file) {
  if (value.is_null()) return std::nullopt;
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.contains("content") && value["content"].is_string()) {
    return value["content"].get<std::string>();
  }
  fail_input("{}: {} must be a token string or an object with \"content\", got {}", file.string(), key,
             value.dump());
}

// A list of tokens; transformers 5's extra_special_tokens may also be an object of named tokens
// ({"image_token": "<image>"}), whose values are the tokens.
void read_token_list(const json& object, const char* key, const fs::path& file,
                     std::vector<std::string>& out) {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return;
  const bool named = it->is_object() && std::string_view(key) == "extra_special_tokens";
  if (!it->is_array() && !named) fail_input("{}: {} must be a list of tokens, got {}", file.string(), key, it->dump());
  for (const json& item : *it) {
    if (auto token = get_token(item, key, file)) out.push_back(std::move(*token));
  }
}

std::string describe(const std::optional<bool>& value) { return *value ? "true" : "false"; }

// tokenizer.json (tokenizers' serialisation): model.vocab, added_tokens, normalizer.
std::vector<std::string> read_tokenizer_json(const fs::path& file, TokenizerSpec& spec,
                                             FileSettings& settings, std::string& prefix) {
  const json root = read_json(file);
  const auto model = root.find("model");
  if (!root.is_object() || model == root.end() || !model->is_object()) {
    fail_input("{}: no \"model\" object: not a Hugging Face tokenizer.json", file.string());
  }
  const std::string type = model->value("type", std::string("WordPiece"));
  if (type != "WordPiece") {
    fail_input(
        "{}: model type is {}, not WordPiece: shmtrain tokenizes BERT-style WordPiece vocabularies only",
        file.string(), type);
  }
  const auto vocab = model->find("vocab");
  if (vocab == model->end() || !vocab->is_object() || vocab->empty()) {
    fail_input("{}: model.vocab is missing or empty", file.string());
  }

  // Ids index a dense table (holes allowed), so each is bounded as config.json's vocab_size
  // is: a crafted id of 2^30 would otherwise allocate a billion empty tokens.
  std::vector<std::string> tokens;
  auto place = [&](const std::string& token, const json& id_value, const char* what) {
    if (!id_value.is_number_unsigned() || id_value.get<std::uint64_t>() >= Vocab::kMaxTokens) {
      fail_input("{}: {} '{}' has id {}; ids are integers from 0 to {}", file.string(), what,
                 token.substr(0, 40), id_value.dump(), Vocab::kMaxTokens - 1);
    }
    if (token.size() > Vocab::kMaxTokenBytes || token.find('\0') != std::string::npos) {
      fail_input("{}: {} '{}' ({} bytes) is longer than {} bytes or holds a NUL byte", file.string(), what,
                 token.substr(0, 40), token.size(), Vocab::kMaxTokenBytes);
    }
    const auto id = id_value.get<std::size_t>();
    if (id >= tokens.size()) tokens.resize(id + 1);
    if (!tokens[id].empty() && tokens[id] != token) {
      fail_input("{}: id {} is given to both '{}' and '{}'", file.string(), id, tokens[id], token);
    }
    tokens[id] = token;
  };
  for (const auto& [token, id] : vocab->items()) place(token, id, "model.vocab token");

  if (auto unk = model->find("unk_token"); unk != model->end()) {
    if (auto name = get_token(*unk, "model.unk_token", file)) spec.special.unk = *name;
  }
  if (auto it = model->find("continuing_subword_prefix"); it != model->end() && it->is_string()) {
    prefix = it->get<std::string>();
  }
  if (auto it = model->find("max_input_chars_per_word"); it != model->end() && it->is_number_unsigned()) {
    spec.max_input_chars_per_word = it->get<std::size_t>();
  }

  if (auto added = root.find("added_tokens"); added != root.end() && added->is_array()) {
    for (const json& entry : *added) {
      if (!entry.is_object() || !entry.contains("content") || !entry.contains("id") ||
          !entry["content"].is_string()) {
        fail_input("{}: added_tokens entries need \"id\" and \"content\", got {}", file.string(),
                   entry.dump());
      }
      const std::string content = entry["content"].get<std::string>();
      place(content, entry["id"], "added token");
      spec.special.extra.push_back(content);
    }
  }

  if (auto pre = root.find("pre_tokenizer"); pre != root.end() && !pre->is_null()) {
    const std::string pre_type = pre->is_object() ? pre->value("type", std::string()) : pre->dump();
    if (pre_type != "BertPreTokenizer") {
      fail_input("{}: pre_tokenizer {} is not supported (shmtrain implements BertPreTokenizer)",
                 file.string(), pre_type);
    }
  }
  const auto normalizer = root.find("normalizer");
  if (normalizer == root.end() || normalizer->is_null()) {
    // No normaliser at all: text reaches the pre-tokenizer as written.
    settings.lowercase = false;
    settings.lowercase_origin = fmt::format("{}: no normalizer", file.filename().string());
    settings.strip_accents = false;
    settings.strip_accents_set = true;
    settings.handle_chinese_chars = false;
    settings.clean_text = false;
  } else {
    const std::string normalizer_type =
        normalizer->is_object() ? normalizer->value("type", std::string()) : normalizer->dump();
    if (normalizer_type != "BertNormalizer") {
      fail_input("{}: normalizer {} is not supported (shmtrain implements BertNormalizer)", file.string(),
                 normalizer_type);
    }
    settings.lowercase = get_bool(*normalizer, "lowercase", file);
    if (settings.lowercase) {
      settings.lowercase_origin = fmt::format("{}: normalizer lowercase = {}", file.filename().string(),
                                              describe(settings.lowercase));
    }
    if (normalizer->contains("strip_accents")) {
      settings.strip_accents = get_bool(*normalizer, "strip_accents", file);
      settings.strip_accents_set = true;
    }
    settings.handle_chinese_chars = get_bool(*normalizer, "handle_chinese_chars", file);
    settings.clean_text = get_bool(*normalizer, "clean_text", file);
  }
  return tokens;
}

// tokenizer_config.json (transformers' tokenizer arguments); overrides what came before.
void read_tokenizer_config(const fs::path& file, TokenizerSpec& spec, FileSettings& settings) {
  const json root = read_json(file);
  if (!root.is_object()) fail_input("{}: expected a JSON object", file.string());
  if (auto lowercase = get_bool(root, "do_lower_case", file)) {
    settings.lowercase = lowercase;
    settings.lowercase_origin = fmt::format("tokenizer_config.json: do_lower_case = {}", describe(lowercase));
  }
  if (root.contains("strip_accents")) {
    settings.strip_accents = get_bool(root, "strip_accents", file);
    settings.strip_accents_set = true;
  }
  if (auto chinese = get_bool(root, "tokenize_chinese_chars", file)) settings.handle_chinese_chars = chinese;

  const std::pair<const char*, std::string*> names[] = {{"cls_token", &spec.special.cls},
                                                        {"sep_token", &spec.special.sep},
                                                        {"pad_token", &spec.special.pad},
                                                        {"unk_token", &spec.special.unk},
                                                        {"mask_token", &spec.special.mask}};
  for (const auto& [key, target] : names) {
    if (auto it = root.find(key); it != root.end()) {
      if (auto token = get_token(*it, key, file)) *target = std::move(*token);
    }
  }
  // transformers 4's additional_special_tokens, transformers 5's extra_special_tokens: the same
  // tokens under either name (each once).
  read_token_list(root, "additional_special_tokens", file, spec.special.extra);
  std::vector<std::string> extra;
  read_token_list(root, "extra_special_tokens", file, extra);
  for (std::string& token : extra) {
    if (std::find(spec.special.extra.begin(), spec.special.extra.end(), token) == spec.special.extra.end()) {
      spec.special.extra.push_back(std::move(token));
    }
  }
  if (auto decoder = root.find("added_tokens_decoder"); decoder != root.end() && decoder->is_object()) {
    for (const auto& [id, entry] : decoder->items()) {
      if (auto token = get_token(entry, "added_tokens_decoder", file))
        spec.special.extra.push_back(std::move(*token));
    }
  }
}

}  // namespace

TokenizerSpec load_tokenizer_spec(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    fail_input("{} not found: pass --vocab a vocab.txt, a tokenizer.json or a Hugging Face model folder",
               path.string());
  }
  fs::path vocab_file = path;
  std::optional<fs::path> config_file;
  if (fs::is_directory(path, ec)) {
    if (fs::is_regular_file(path / "tokenizer.json", ec)) {
      vocab_file = path / "tokenizer.json";
    } else if (fs::is_regular_file(path / "vocab.txt", ec)) {
      vocab_file = path / "vocab.txt";
    } else {
      fail_input(
          "no vocab.txt or tokenizer.json in {}: pass --vocab a Hugging Face BERT model folder or the "
          "vocabulary file itself",
          path.string());
    }
    if (fs::is_regular_file(path / "tokenizer_config.json", ec)) config_file = path / "tokenizer_config.json";
  }

  TokenizerSpec spec;
  spec.source = vocab_file.string();
  FileSettings settings;
  std::string prefix = "##";
  std::vector<std::string> tokens;
  fs::path reading = vocab_file;
  try {
    if (vocab_file.extension() == ".json") {
      tokens = read_tokenizer_json(vocab_file, spec, settings, prefix);
    } else {
      tokens = read_vocab_txt(vocab_file);
    }
    if (config_file) {
      reading = *config_file;
      read_tokenizer_config(*config_file, spec, settings);
    }
  } catch (const nlohmann::json::exception& e) {
    // A key of an unexpected JSON type that the checks above did not name.
    fail_input("{}: unexpected content: {}", reading.string(), e.what());
  }
  spec.vocab = std::make_shared<const Vocab>(tokens, prefix);

  if (settings.lowercase) {
    spec.normalizer.lowercase = *settings.lowercase;
    spec.lowercase_origin = settings.lowercase_origin;
  } else if (const auto cased = find_cased_token(*spec.vocab)) {
    spec.normalizer.lowercase = false;
    spec.lowercase_origin = fmt::format("{} holds upper-case tokens (e.g. \"{}\"), so it is read as cased",
                                        vocab_file.filename().string(), *cased);
  } else {
    spec.normalizer.lowercase = true;
    spec.lowercase_origin = fmt::format("{} holds no upper-case tokens, so it is read as uncased",
                                        vocab_file.filename().string());
  }
  if (settings.strip_accents_set) spec.normalizer.strip_accents = settings.strip_accents;
  if (settings.handle_chinese_chars) spec.normalizer.handle_chinese_chars = *settings.handle_chinese_chars;
  if (settings.clean_text) spec.normalizer.clean_text = *settings.clean_text;
  return spec;
}

void override_lowercase(TokenizerSpec& spec, std::optional<bool> do_lower_case) {
  if (!do_lower_case) return;
  spec.normalizer.lowercase = *do_lower_case;
  spec.lowercase_origin = fmt::format("--do_lower_case {}", *do_lower_case ? "true" : "false");
}

}  // namespace shmtrain::text
