// DeBERTa-v2/v3's tokenizer files (the Hub's deberta-v3-base ships spm.model and a
// tokenizer_config.json, no tokenizer.json), built as transformers' DebertaV2Converter turns
// DebertaV2Tokenizer into its fast form, so that offsets come with the ids: the model's own
// SentencePiece Unigram pieces and ids ([PAD] 0, [CLS] 1, [SEP] 2, [UNK] 3 in the released
// models), [MASK] after the pieces when the model lacks it; normalisation: Lowercase with
// do_lower_case, Strip, the model's precompiled map, runs of spaces to one; pre-tokenisation:
// each punctuation mark on its own with split_by_punct (and the spaces between dropped), then
// Metaspace (every part gets its "▁", as each SentencePiece call of the slow tokenizer does); [CLS] A [SEP]
// (B [SEP], type 1); a pair cut longest_first as the slow tokenizer's Python code cuts it.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pipeline.hpp"
#include "shmtrain/common/error.hpp"
#include "spm_model.hpp"

namespace shmtrain::text::pipeline {
namespace fs = std::filesystem;

namespace {

bool config_flag(const nlohmann::json& config, const char* key) {
  return config.contains(key) && config[key].is_boolean() && config[key].get<bool>();
}

// split_by_punct as the slow tokenizer runs it, on the text before SentencePiece normalises it:
// each punctuation mark of the original text is a part of its own, even where normalisation
// made several characters of it ("…" -> "...": one part, not three).
class PunctuationOfOriginalText final : public PreTokenizer {
 public:
  void split(std::vector<AlignedText>& pieces) const override {
    std::vector<AlignedText> out;
    for (const AlignedText& piece : pieces) {
      std::vector<std::pair<std::size_t, std::size_t>> marks;
      for (std::size_t i = 0; i < piece.size();) {
        if (!is_any_punctuation(piece.chars[i])) {
          ++i;
          continue;
        }
        std::size_t end = i + 1;
        while (end < piece.size() && piece.spans[end] == piece.spans[i] &&
               is_any_punctuation(piece.chars[end]))
          ++end;
        marks.emplace_back(i, end);
        i = end;
      }
      split_at(piece, marks, SplitBehavior::kIsolated, false, out);
    }
    pieces = std::move(out);
  }
};

nlohmann::json template_special(const std::string& token, std::int32_t type_id) {
  return {{"SpecialToken", {{"id", token}, {"type_id", type_id}}}};
}

nlohmann::json template_sequence(const char* id, std::int32_t type_id) {
  return {{"Sequence", {{"id", id}, {"type_id", type_id}}}};
}

// Pre-tokenizers run in turn, each over the last one's pieces.
class PreTokenizerSteps final : public PreTokenizer {
 public:
  explicit PreTokenizerSteps(std::vector<std::unique_ptr<PreTokenizer>> steps) : steps_(std::move(steps)) {}
  void split(std::vector<AlignedText>& pieces) const override {
    for (const auto& step : steps_) step->split(pieces);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

}  // namespace

std::unique_ptr<HfTokenizer::Impl> read_deberta_spm(const fs::path& file) {
  const SpmModel spm = load_spm_model(file);
  const sentencepiece::SentencePieceProcessor& sp = *spm.processor;
  const std::string source = file.string();
  const int n = sp.GetPieceSize();
  std::vector<UnigramPiece> pieces;
  pieces.reserve(static_cast<std::size_t>(n) + 1);
  for (int id = 0; id < n; ++id) pieces.push_back({sp.IdToPiece(id), sp.GetScore(id)});
  auto id_of = [&](const char* token) -> std::int32_t {
    const int id = sp.PieceToId(token);
    return sp.IdToPiece(id) == token ? id : -1;
  };
  std::int32_t mask = id_of("[MASK]");
  if (mask < 0) {  // DebertaV2Tokenizer adds it after the model's pieces: id len(vocab)
    mask = n;
    pieces.push_back({"[MASK]", 0.0});
  }
  std::vector<AddedToken> added;
  for (const char* token : {"[PAD]", "[CLS]", "[SEP]", "[UNK]"}) {
    const std::int32_t id = id_of(token);
    if (id < 0) {
      fail_input(
          "{}: the SentencePiece model has no '{}' piece; DeBERTa's layout has [PAD], [CLS], [SEP] and [UNK] "
          "among its pieces",
          source, token);
    }
    added.push_back({id, token, false, false, false, false, true});
  }
  added.push_back({mask, "[MASK]", false, false, false, false, true});

  const nlohmann::json config = read_optional_json(file.parent_path() / "tokenizer_config.json");
  const bool lower = config_flag(config, "do_lower_case");
  const bool split_by_punct = config_flag(config, "split_by_punct");
  auto impl = std::make_unique<HfTokenizer::Impl>();
  impl->source = source;
  impl->files = {file};
  impl->model = make_unigram(std::move(pieces), sp.unk_id(), false, source);

  nlohmann::json normalizers = nlohmann::json::array();
  if (lower) normalizers.push_back({{"type", "Lowercase"}});
  normalizers.push_back({{"type", "Strip"}, {"strip_left", true}, {"strip_right", true}});
  if (!spm.precompiled.is_null()) normalizers.push_back(spm.precompiled);
  normalizers.push_back({{"type", "Replace"}, {"pattern", {{"Regex", " {2,}"}}}, {"content", " "}});
  impl->normalizer =
      read_normalizer(JsonFields({{"type", "Sequence"}, {"normalizers", normalizers}}, "", source));

  const nlohmann::json metaspace = {
      {"type", "Metaspace"}, {"replacement", "\u2581"}, {"prepend_scheme", "always"}, {"split", true}};
  if (split_by_punct) {
    // The slow tokenizer encodes each part between punctuation marks on its own, and
    // SentencePiece drops a part's outer spaces: the spaces go, each word keeps its "▁".
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    steps.push_back(std::make_unique<PunctuationOfOriginalText>());
    steps.push_back(read_pre_tokenizer(JsonFields({{"type", "WhitespaceSplit"}}, "", source)));
    steps.push_back(read_pre_tokenizer(JsonFields(metaspace, "", source)));
    impl->pre_tokenizer = std::make_unique<PreTokenizerSteps>(std::move(steps));
  } else {
    impl->pre_tokenizer = read_pre_tokenizer(JsonFields(metaspace, "", source));
  }

  const std::int32_t cls = added[1].id;
  const std::int32_t sep = added[2].id;
  const nlohmann::json post = {
      {"type", "TemplateProcessing"},
      {"single", {template_special("[CLS]", 0), template_sequence("A", 0), template_special("[SEP]", 0)}},
      {"pair",
       {template_special("[CLS]", 0), template_sequence("A", 0), template_special("[SEP]", 0),
        template_sequence("B", 1), template_special("[SEP]", 1)}},
      {"special_tokens",
       {{"[CLS]", {{"id", "[CLS]"}, {"ids", {cls}}, {"tokens", {"[CLS]"}}}},
        {"[SEP]", {{"id", "[SEP]"}, {"ids", {sep}}, {"tokens", {"[SEP]"}}}}}}};
  impl->post_processor = read_post_processor(JsonFields(post, "", source));
  impl->pad_id = added[0].id;
  impl->slow_truncation = true;  // the and run_glue's reference is DebertaV2Tokenizer
  impl->added = AddedVocabulary(std::move(added), nullptr);
  impl->description =
      fmt::format("spm.model (DeBERTa: Unigram, {} pieces, [MASK] {}{}{})", n, mask,
                  lower ? ", lower-cased" : "", split_by_punct ? ", split by punctuation" : "");
  return impl;
}

}  // namespace shmtrain::text::pipeline
