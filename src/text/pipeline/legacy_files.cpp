// The tokenizer files that came before tokenizer.json, built into the same pipeline as
// transformers' converters build them: RobertaTokenizer's vocab.json + merges.txt (byte-level
// BPE) and XLMRobertaTokenizer's sentencepiece.bpe.model (Unigram with fairseq's ids: <s> 0,
// <pad> 1, </s> 2, <unk> 3, SentencePiece's id i >= 3 at i + 1, <mask> last), read by
// spm_model.hpp. DeBERTa's spm.model is deberta_spm.cpp.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pipeline.hpp"
#include "spm_model.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::text::pipeline {
namespace fs = std::filesystem;

namespace {

std::unique_ptr<PreTokenizer> make_from_json(const nlohmann::json& j, const std::string& source,
                                             std::unique_ptr<PreTokenizer> (*read)(const JsonFields&)) {
  return read(JsonFields(j, "", source));
}

std::int32_t require_id(const Model& model, const std::string& token, const std::string& source) {
  const std::int32_t id = model.vocab().find(token);
  if (id < 0) fail_input("{}: the special token '{}' is not in the vocabulary", source, token);
  return id;
}

}  // namespace

nlohmann::json read_optional_json(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return nlohmann::json::object();
  nlohmann::json j = read_json_file(file.string());
  return j.is_object() ? j : nlohmann::json::object();
}

std::unique_ptr<HfTokenizer::Impl> read_roberta_files(const fs::path& folder, bool add_prefix_space) {
  const fs::path vocab = folder / "vocab.json";
  const fs::path merges = folder / "merges.txt";
  auto impl = std::make_unique<HfTokenizer::Impl>();
  impl->source = merges.string();
  impl->files = {vocab, merges};
  impl->model = read_bpe_files(vocab.string(), merges.string());
  const nlohmann::json config = read_optional_json(folder / "tokenizer_config.json");
  const bool prefix = add_prefix_space || (config.contains("add_prefix_space") && config["add_prefix_space"].is_boolean() &&
                                           config["add_prefix_space"].get<bool>());
  const bool trim = !config.contains("trim_offsets") || !config["trim_offsets"].is_boolean() || config["trim_offsets"].get<bool>();
  impl->pre_tokenizer = make_from_json({{"type", "ByteLevel"}, {"add_prefix_space", prefix}, {"trim_offsets", trim}},
                                       impl->source, read_pre_tokenizer);
  const std::string& source = impl->source;
  std::vector<AddedToken> added;
  for (const char* name : {"<s>", "<pad>", "</s>", "<unk>", "<mask>"}) {
    AddedToken t;
    t.id = require_id(*impl->model, name, source);
    t.content = name;
    t.special = true;
    t.lstrip = std::string(name) == "<mask>";
    added.push_back(t);
  }
  impl->post_processor = roberta_post_processor(added[0].id, added[2].id, trim, prefix);
  impl->added = AddedVocabulary(std::move(added), nullptr);
  impl->description = fmt::format("vocab.json + merges.txt (byte-level BPE, add_prefix_space {})", prefix);
  return impl;
}

std::unique_ptr<HfTokenizer::Impl> read_sentencepiece_model(const fs::path& file) {
  const SpmModel spm = load_spm_model(file);
  const sentencepiece::SentencePieceProcessor& sp = *spm.processor;
  const int n = sp.GetPieceSize();
  if (n < 3) fail_input("{}: a SentencePiece model with {} pieces; XLM-R's layout needs <unk>, <s>, </s> first", file.string(), n);
  std::vector<UnigramPiece> pieces = {{"<s>", 0.0}, {"<pad>", 0.0}, {"</s>", 0.0}, {"<unk>", 0.0}};
  for (int id = 3; id < n; ++id) pieces.push_back({sp.IdToPiece(id), sp.GetScore(id)});
  pieces.push_back({"<mask>", 0.0});
  const auto mask_id = static_cast<std::int32_t>(pieces.size() - 1);
  auto impl = std::make_unique<HfTokenizer::Impl>();
  impl->source = file.string();
  impl->files = {file};
  impl->model = make_unigram(std::move(pieces), 3, false, impl->source);

  // Normalisation as XLMRobertaConverter writes it: the model's own map, then runs of spaces
  // become one.
  nlohmann::json normalizers = nlohmann::json::array();
  if (!spm.precompiled.is_null()) normalizers.push_back(spm.precompiled);
  normalizers.push_back({{"type", "Replace"}, {"pattern", {{"Regex", " {2,}"}}}, {"content", " "}});
  impl->normalizer = read_normalizer(JsonFields({{"type", "Sequence"}, {"normalizers", normalizers}}, "", impl->source));
  impl->pre_tokenizer = make_from_json({{"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "always"}},
                                       impl->source, read_pre_tokenizer);
  impl->post_processor = roberta_post_processor(0, 2, false, true);
  std::vector<AddedToken> added;
  const char* const names[] = {"<s>", "<pad>", "</s>", "<unk>"};
  for (std::int32_t id = 0; id < 4; ++id) added.push_back({id, names[id], false, false, false, false, true});
  added.push_back({mask_id, "<mask>", false, true, false, false, true});
  impl->added = AddedVocabulary(std::move(added), nullptr);
  impl->pad_id = 1;
  impl->description = fmt::format("sentencepiece.bpe.model (Unigram, {} pieces, fairseq ids)", n);
  return impl;
}

}  // namespace shmtrain::text::pipeline
