// Reading a tokenizer.json (tokenizers' serialisation of a Tokenizer) into the pipeline.
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pipeline.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/text/utf8.hpp"
#include "shmtrain/text/vocab.hpp"

namespace shmtrain::text::pipeline {
namespace fs = std::filesystem;

namespace {

std::vector<AddedToken> read_added_tokens(const JsonFields& top) {
  std::vector<AddedToken> out;
  if (!top.has("added_tokens")) return out;
  const nlohmann::json& list = top.array("added_tokens");
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonFields f = top.element(list[i], "added_tokens", i);
    AddedToken t;
    const std::int64_t id = f.integer("id");
    if (id < 0 || static_cast<std::uint64_t>(id) >= Vocab::kMaxTokens) {
      f.fail("id", fmt::format("{} is outside 0..{}", id, Vocab::kMaxTokens - 1));
    }
    t.id = static_cast<std::int32_t>(id);
    t.content = f.string("content");
    check_utf8(t.content, fmt::format("{}: {}", f.file(), f.key_path("content")));
    t.single_word = f.boolean_or("single_word", false);
    t.lstrip = f.boolean_or("lstrip", false);
    t.rstrip = f.boolean_or("rstrip", false);
    t.special = f.boolean_or("special", false);
    t.normalized = f.boolean_or("normalized", !t.special);
    out.push_back(std::move(t));
  }
  return out;
}

// An added token's id is its own token's in the model's vocabulary, or one of the ids that
// follow the vocabulary without a gap.
void check_added_ids(const std::vector<AddedToken>& added, const Model& model, const JsonFields& top) {
  const std::size_t vocab = model.vocab().size();
  std::set<std::int32_t> beyond;
  for (std::size_t i = 0; i < added.size(); ++i) {
    const AddedToken& t = added[i];
    const std::string key = fmt::format("added_tokens[{}]", i);
    if (static_cast<std::size_t>(t.id) < vocab) {
      const std::string& own = model.vocab().token(t.id);
      if (own != t.content) {
        top.fail(key, fmt::format("'{}' claims id {}, which the model's vocabulary gives to '{}'", t.content, t.id, own));
      }
      continue;
    }
    beyond.insert(t.id);
  }
  std::int32_t expected = static_cast<std::int32_t>(vocab);
  for (const std::int32_t id : beyond) {
    if (id != expected) {
      top.fail("added_tokens", fmt::format("id {} leaves ids {}..{} without a token (the vocabulary has {})", id, expected,
                                           id - 1, vocab));
    }
    ++expected;
  }
}

// The decoder only turns ids back into text, which training never does; its type is still
// checked so that a damaged file is not half-read.
void check_decoder(const JsonFields& f) {
  static const std::set<std::string> known = {"ByteLevel", "WordPiece", "Metaspace", "BPEDecoder", "CTC", "Sequence",
                                              "Replace", "Fuse", "Strip", "ByteFallback"};
  const std::string type = f.string("type");
  if (!known.contains(type)) f.fail("type", fmt::format("unknown decoder '{}'", type));
  if (type == "Sequence") {
    const nlohmann::json& list = f.array("decoders");
    for (std::size_t i = 0; i < list.size(); ++i) check_decoder(f.element(list[i], "decoders", i));
  }
}

// RobertaTokenizerFast(add_prefix_space=True): every ByteLevel component of the file, and
// RobertaProcessing, get add_prefix_space true.
void force_prefix_space(nlohmann::json& j) {
  if (j.is_array()) {
    for (nlohmann::json& item : j) force_prefix_space(item);
    return;
  }
  if (!j.is_object()) return;
  const auto type = j.find("type");
  if (type != j.end() && type->is_string() && (*type == "ByteLevel" || *type == "RobertaProcessing")) {
    j["add_prefix_space"] = true;
  }
  for (const char* key : {"pre_tokenizer", "post_processor", "pretokenizers", "processors"}) {
    if (j.contains(key)) force_prefix_space(j[key]);
  }
}

std::string describe(const nlohmann::json& j) {
  auto type_of = [&](const char* key) -> std::string {
    if (!j.contains(key) || !j[key].is_object() || !j[key].contains("type") || !j[key]["type"].is_string()) return "none";
    return j[key]["type"].get<std::string>();
  };
  return fmt::format("model {}, normalizer {}, pre-tokenizer {}, post-processor {}", type_of("model"), type_of("normalizer"),
                     type_of("pre_tokenizer"), type_of("post_processor"));
}

}  // namespace

std::unique_ptr<HfTokenizer::Impl> read_tokenizer_json(const fs::path& path, bool add_prefix_space) {
  nlohmann::json j = read_json_file(path.string());
  if (add_prefix_space) force_prefix_space(j);
  const std::string file = path.string();
  const JsonFields top(j, "", file);
  auto impl = std::make_unique<HfTokenizer::Impl>();
  impl->source = file;
  impl->files.push_back(path);
  if (top.has("normalizer")) impl->normalizer = read_normalizer(top.child("normalizer"));
  if (top.has("pre_tokenizer")) impl->pre_tokenizer = read_pre_tokenizer(top.child("pre_tokenizer"));
  impl->model = read_model(top.child("model"));
  impl->post_processor = top.has("post_processor") ? read_post_processor(top.child("post_processor")) : default_post_processor();
  std::vector<AddedToken> added = read_added_tokens(top);
  check_added_ids(added, *impl->model, top);
  impl->added = AddedVocabulary(std::move(added), impl->normalizer.get());
  if (top.has("decoder")) check_decoder(top.child("decoder"));
  impl->description = fmt::format("tokenizer.json ({})", describe(j));
  if (top.has("padding")) {
    const JsonFields padding = top.child("padding");
    if (auto id = padding.optional_integer("pad_id")) impl->pad_id = static_cast<std::int32_t>(*id);
  }
  // Every id the post-processor writes must name a token.
  SequenceTokens none;
  SequenceTokens none_b;
  const auto names = impl->names();
  for (const bool pair : {false, true}) {
    SequenceTokens a = none;
    SequenceTokens b = none_b;
    const SequenceTokens out = impl->post_processor->process(a, pair ? &b : nullptr, true, names);
    for (const std::int32_t id : out.ids) {
      if (impl->token(id).empty()) {
        top.fail("post_processor", fmt::format("special token id {} is not in the vocabulary or added_tokens", id));
      }
    }
  }
  return impl;
}

}  // namespace shmtrain::text::pipeline
