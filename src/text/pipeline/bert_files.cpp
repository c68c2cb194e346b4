// BERT's tokenizer from its settings (tokenizer_files.hpp) as a pipeline, step for step what
// transformers' convert_slow_tokenizer.BertConverter builds from a vocab.txt:
//   normalizer     BertNormalizer(clean_text, handle_chinese_chars, strip_accents, lowercase)
//   pre_tokenizer  BertPreTokenizer
//   model          WordPiece(vocab, unk_token, "##", max_input_chars_per_word 100)
//   post_processor [CLS] $A [SEP] and [CLS] $A [SEP] $B:1 [SEP]:1 (BertProcessing)
// and the special tokens as added tokens matched in the raw text as written.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pipeline.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::text::pipeline {
namespace fs = std::filesystem;

namespace {

std::int32_t required_id(const TokenizerSpec& spec, const TokenTable& vocab, const std::string& token) {
  const std::int32_t id = vocab.find(token);
  if (id < 0) {
    fail_input("{}: the vocabulary has no {} token; a BERT vocabulary needs {}, {} and {}: is this a BERT "
               "vocab.txt / tokenizer.json?",
               spec.source, token, spec.special.cls, spec.special.sep, spec.special.unk);
  }
  return id;
}

// The special tokens, kept whole where the text has them. One missing from the vocabulary
// (such as [MASK] in a vocabulary without it) is kept whole too, with [UNK]'s id, as the slow
// BertTokenizer does; it comes after [UNK] so that [UNK]'s id still reads as [UNK].
std::vector<AddedToken> special_tokens(const TokenizerSpec& spec, const TokenTable& vocab, std::int32_t unk_id) {
  std::vector<std::string> texts = {spec.special.cls, spec.special.sep, spec.special.pad, spec.special.unk,
                                    spec.special.mask};
  texts.insert(texts.end(), spec.special.extra.begin(), spec.special.extra.end());
  std::vector<AddedToken> tokens;
  for (std::string& text : texts) {
    const std::int32_t id = vocab.find(text);
    AddedToken t;
    t.id = id < 0 ? unk_id : id;
    t.content = std::move(text);
    t.special = true;
    tokens.push_back(std::move(t));
  }
  return tokens;
}

}  // namespace

std::unique_ptr<HfTokenizer::Impl> read_bert_files(const fs::path& path, std::optional<bool> do_lower_case) {
  TokenizerSpec spec = load_tokenizer_spec(path);
  override_lowercase(spec, do_lower_case);
  auto impl = std::make_unique<HfTokenizer::Impl>();
  impl->source = spec.source;
  std::vector<std::string> tokens;
  for (std::size_t id = 0; id < spec.vocab->size(); ++id) tokens.emplace_back(spec.vocab->token(static_cast<std::int32_t>(id)));
  impl->model = std::make_unique<WordPieceModel>(TokenTable::from_lines(std::move(tokens)), spec.special.unk,
                                                 spec.vocab->continuing_subword_prefix(), spec.max_input_chars_per_word,
                                                 spec.source);
  const TokenTable& vocab = impl->model->vocab();
  const std::int32_t cls = required_id(spec, vocab, spec.special.cls);
  const std::int32_t sep = required_id(spec, vocab, spec.special.sep);
  const std::int32_t unk = required_id(spec, vocab, spec.special.unk);

  const NormalizerOptions& n = spec.normalizer;
  nlohmann::json normalizer = {{"type", "BertNormalizer"},
                               {"clean_text", n.clean_text},
                               {"handle_chinese_chars", n.handle_chinese_chars},
                               {"lowercase", n.lowercase}};
  if (n.strip_accents) normalizer["strip_accents"] = *n.strip_accents;  // unset: follow lowercase
  impl->normalizer = read_normalizer(JsonFields(normalizer, "normalizer", impl->source));
  impl->pre_tokenizer = read_pre_tokenizer(JsonFields({{"type", "BertPreTokenizer"}}, "pre_tokenizer", impl->source));
  const nlohmann::json processing = {{"type", "BertProcessing"},
                                     {"cls", {spec.special.cls, cls}},
                                     {"sep", {spec.special.sep, sep}}};
  impl->post_processor = read_post_processor(JsonFields(processing, "post_processor", impl->source));
  impl->added = AddedVocabulary(special_tokens(spec, vocab, unk), impl->normalizer.get());
  impl->pad_id = vocab.find(spec.special.pad);
  impl->description = fmt::format("WordPiece, {} tokens, do_lower_case {} ({}), strip_accents {}", vocab.size(),
                                  n.lowercase, spec.lowercase_origin, n.strips_accents());
  impl->bert_spec = std::move(spec);
  return impl;
}

}  // namespace shmtrain::text::pipeline
