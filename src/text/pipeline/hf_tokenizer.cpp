#include "shmtrain/text/hf_tokenizer.hpp"

#include <algorithm>
#include <fstream>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pipeline.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/io/atomic_file.hpp"
#include "shmtrain/text/tokenizer_writer.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text {
namespace fs = std::filesystem;
using pipeline::AlignedText;
using pipeline::SequenceTokens;

const std::string& HfTokenizer::Impl::token(std::int32_t id) const {
  if (const pipeline::AddedToken* t = added.find(id)) return t->content;
  return model->vocab().token(id);
}

SequenceTokens HfTokenizer::Impl::finish(SequenceTokens a, SequenceTokens* b, bool add_special_tokens,
                                         const Truncation& truncation) const {
  if (truncation.max_length > 0) {
    const std::size_t specials = add_special_tokens ? post_processor->added_tokens(b != nullptr) : 0;
    if (truncation.max_length < specials) {
      fail_input("max_seq_length {} is below the {} special tokens the tokenizer adds", truncation.max_length, specials);
    }
    pipeline::truncate_pair(a, b, truncation.max_length - specials, truncation, slow_truncation);
  }
  return post_processor->process(std::move(a), b, add_special_tokens, names());
}

namespace {

// tokenizer_config.json's (or special_tokens_map.json's) pad_token, if the folder has one.
std::optional<std::string> configured_pad_token(const fs::path& folder) {
  for (const char* name : {"tokenizer_config.json", "special_tokens_map.json"}) {
    const fs::path file = folder / name;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;
    const nlohmann::json j = pipeline::read_json_file(file.string());
    if (!j.is_object() || !j.contains("pad_token")) continue;
    const nlohmann::json& pad = j["pad_token"];
    if (pad.is_string()) return pad.get<std::string>();
    if (pad.is_object() && pad.contains("content") && pad["content"].is_string()) return pad["content"].get<std::string>();
  }
  return std::nullopt;
}

void choose_pad(HfTokenizer::Impl& impl, const fs::path& folder) {
  std::vector<std::string> candidates;
  if (!folder.empty()) {
    if (auto configured = configured_pad_token(folder)) candidates.push_back(*configured);
  }
  for (const char* name : {"<pad>", "[PAD]"}) candidates.emplace_back(name);
  if (impl.pad_id >= 0) return;  // tokenizer.json's "padding" named it
  for (const std::string& c : candidates) {
    if (const auto* t = impl.added.find(c)) {
      impl.pad_id = t->id;
      return;
    }
    const std::int32_t id = impl.model->vocab().find(c);
    if (id >= 0) {
      impl.pad_id = id;
      return;
    }
  }
}

std::unique_ptr<HfTokenizer::Impl> finish_loading(std::unique_ptr<HfTokenizer::Impl> impl, const fs::path& folder) {
  if (!impl->bert_spec) choose_pad(*impl, folder);
  impl->ids_path = pipeline::BertIdsPath::make(impl->normalizer.get(), impl->pre_tokenizer.get(), *impl->model,
                                               impl->added);
  impl->layout = pipeline::IdsLayout(*impl->post_processor, impl->names());
  return impl;
}

SequenceTokens encode_sequence(const HfTokenizer::Impl& impl, std::string_view text, std::int32_t word_index,
                               std::int32_t sequence, std::string_view what) {
  check_utf8(text, what);
  const AlignedText raw = pipeline::aligned_from_utf8(text);
  const std::vector<pipeline::TextPart> parts = impl.added.split(raw, impl.normalizer.get());
  SequenceTokens out;
  std::int32_t split_index = 0;
  std::vector<pipeline::PieceToken> tokens;
  auto push = [&](std::int32_t id, std::string token, CharSpan span, std::int32_t word) {
    out.ids.push_back(id);
    out.tokens.push_back(std::move(token));
    out.offsets.push_back(span);
    out.word_ids.push_back(word_index >= 0 ? word_index : word);
    out.type_ids.push_back(sequence == 1 ? 1 : 0);  // tokenizers encodes a pair's second text with type 1
    out.special.push_back(0);
    out.sequence.push_back(sequence);
  };
  for (const pipeline::TextPart& part : parts) {
    if (part.id >= 0) {
      push(part.id, part.text.utf8(), part.text.original(0, part.text.size()), split_index++);
      continue;
    }
    std::vector<AlignedText> pieces{part.text};
    if (impl.pre_tokenizer) impl.pre_tokenizer->split(pieces);
    for (const AlignedText& piece : pieces) {
      if (piece.empty()) continue;
      tokens.clear();
      impl.model->tokenize(piece, tokens);
      for (const pipeline::PieceToken& t : tokens) {
        push(t.id, t.literal ? piece.utf8(t.begin, t.end) : impl.token(t.id), piece.original(t.begin, t.end), split_index);
      }
      ++split_index;
    }
  }
  return out;
}

TokenizedText to_public(SequenceTokens s) {
  TokenizedText t;
  t.ids = std::move(s.ids);
  t.tokens = std::move(s.tokens);
  t.offsets = std::move(s.offsets);
  t.word_ids = std::move(s.word_ids);
  t.type_ids = std::move(s.type_ids);
  t.special_tokens_mask = std::move(s.special);
  t.sequence_ids = std::move(s.sequence);
  return t;
}

SequenceTokens from_public(TokenizedText t) {
  SequenceTokens s;
  s.ids = std::move(t.ids);
  s.tokens = std::move(t.tokens);
  if (s.tokens.size() != s.ids.size()) s.tokens.assign(s.ids.size(), std::string());
  s.offsets = std::move(t.offsets);
  s.word_ids = std::move(t.word_ids);
  s.type_ids = std::move(t.type_ids);
  s.special = std::move(t.special_tokens_mask);
  s.sequence = std::move(t.sequence_ids);
  return s;
}

}  // namespace

HfTokenizer::HfTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HfTokenizer::HfTokenizer(HfTokenizer&&) noexcept = default;
HfTokenizer& HfTokenizer::operator=(HfTokenizer&&) noexcept = default;
HfTokenizer::~HfTokenizer() = default;

HfTokenizer HfTokenizer::load(const fs::path& path, bool add_prefix_space) {
  std::error_code ec;
  std::unique_ptr<Impl> impl;
  fs::path folder;
  if (fs::is_directory(path, ec)) {
    folder = path;
    if (fs::is_regular_file(path / "tokenizer.json", ec)) impl = pipeline::read_tokenizer_json(path / "tokenizer.json", add_prefix_space);
    else if (fs::is_regular_file(path / "merges.txt", ec)) impl = pipeline::read_roberta_files(path, add_prefix_space);
    else if (fs::is_regular_file(path / "sentencepiece.bpe.model", ec)) impl = pipeline::read_sentencepiece_model(path / "sentencepiece.bpe.model");
    else if (fs::is_regular_file(path / "spm.model", ec)) impl = pipeline::read_deberta_spm(path / "spm.model");
    else if (fs::is_regular_file(path / "vocab.txt", ec)) return load_bert(path);
    else fail_input("{}: no tokenizer.json, vocab.json + merges.txt, sentencepiece.bpe.model, spm.model or vocab.txt in this folder", path.string());
    for (const char* extra : {"tokenizer_config.json", "special_tokens_map.json"}) {
      if (fs::is_regular_file(path / extra, ec)) impl->files.push_back(path / extra);
    }
  } else if (path.filename() == "spm.model") {
    impl = pipeline::read_deberta_spm(path);
  } else if (path.extension() == ".model") {
    impl = pipeline::read_sentencepiece_model(path);
  } else if (path.extension() == ".txt" && path.filename() != "merges.txt") {
    impl = pipeline::read_bert_files(path, std::nullopt);
  } else if (path.filename() == "merges.txt" || path.filename() == "vocab.json") {
    impl = pipeline::read_roberta_files(path.parent_path(), add_prefix_space);
    folder = path.parent_path();
  } else {
    impl = pipeline::read_tokenizer_json(path, add_prefix_space);
  }
  return HfTokenizer(finish_loading(std::move(impl), folder));
}

HfTokenizer HfTokenizer::load_bert(const fs::path& path, std::optional<bool> do_lower_case) {
  return HfTokenizer(finish_loading(pipeline::read_bert_files(path, do_lower_case), {}));
}

TokenizedText HfTokenizer::encode_text(std::string_view text, std::optional<std::string_view> pair,
                                       bool add_special_tokens, const Truncation& truncation) const {
  SequenceTokens a = encode_sequence(*impl_, text, -1, 0, "text");
  SequenceTokens b;
  if (pair) b = encode_sequence(*impl_, *pair, -1, 1, "text pair");
  SequenceTokens* pb = pair ? &b : nullptr;
  return to_public(impl_->finish(std::move(a), pb, add_special_tokens, truncation));
}

TokenizedText HfTokenizer::encode_words(const std::vector<std::string>& words, const std::vector<std::string>* pair_words,
                                        bool add_special_tokens, const Truncation& truncation) const {
  auto encode_list = [&](const std::vector<std::string>& list, std::int32_t sequence) {
    SequenceTokens out;
    for (std::size_t i = 0; i < list.size(); ++i) {
      out.append(encode_sequence(*impl_, list[i], static_cast<std::int32_t>(i), sequence, fmt::format("word {}", i + 1)));
    }
    return out;
  };
  SequenceTokens a = encode_list(words, 0);
  SequenceTokens b;
  if (pair_words != nullptr) b = encode_list(*pair_words, 1);
  SequenceTokens* pb = pair_words != nullptr ? &b : nullptr;
  return to_public(impl_->finish(std::move(a), pb, add_special_tokens, truncation));
}

TokenizedText HfTokenizer::post_process(TokenizedText a, TokenizedText* b) const {
  SequenceTokens sa = from_public(std::move(a));
  SequenceTokens sb;
  if (b != nullptr) sb = from_public(std::move(*b));
  const auto names = impl_->names();
  return to_public(impl_->post_processor->process(std::move(sa), b != nullptr ? &sb : nullptr, true, names));
}

std::size_t HfTokenizer::num_special_tokens(bool pair) const { return impl_->post_processor->added_tokens(pair); }

const std::string& HfTokenizer::token(std::int32_t id) const { return impl_->token(id); }

std::optional<std::int32_t> HfTokenizer::token_id(std::string_view token) const {
  if (const auto* t = impl_->added.find(std::string(token))) return t->id;
  const std::int32_t id = impl_->model->vocab().find(token);
  if (id < 0) return std::nullopt;
  return id;
}

std::size_t HfTokenizer::vocab_size() const {
  std::size_t n = impl_->model->vocab().size();
  for (const auto& t : impl_->added.tokens()) n = std::max(n, static_cast<std::size_t>(t.id) + 1);
  return n;
}

std::int32_t HfTokenizer::pad_id() const { return impl_->pad_id; }
const std::string& HfTokenizer::source() const { return impl_->source; }
std::string HfTokenizer::description() const { return impl_->description; }
const std::vector<fs::path>& HfTokenizer::files() const { return impl_->files; }


void HfTokenizer::tokenize(std::string_view text, std::vector<std::int32_t>& ids, std::string_view what) const {
  pipeline::tokenize_ids(*impl_, text, ids, what);
}

void HfTokenizer::tokenize_with_offsets(std::string_view text, std::vector<std::int32_t>& ids,
                                        std::vector<CharSpan>& offsets, std::string_view what) const {
  // The post-processor's offset rules (byte-level trimming) apply without special tokens too.
  const auto names = impl_->names();
  const SequenceTokens a =
      impl_->post_processor->process(encode_sequence(*impl_, text, -1, 0, what), nullptr, false, names);
  ids.insert(ids.end(), a.ids.begin(), a.ids.end());
  offsets.insert(offsets.end(), a.offsets.begin(), a.offsets.end());
}

void HfTokenizer::encode(std::string_view text_a, std::optional<std::string_view> text_b, const EncodeOptions& options,
                         Encoding& out) const {
  if (options.pad_to_max_length && options.max_seq_length == 0) {
    fail_input("padding to max_seq_length needs a max_seq_length");
  }
  // A slow tokenizer's truncation (DeBERTa's spm.model) has rules of its own: truncate_pair's.
  if (impl_->slow_truncation) {
    encode_steps(text_a, text_b, options.max_seq_length, out);
  } else {
    encode_ids(text_a, text_b, options.max_seq_length, out);
  }
  if (options.pad_to_max_length && out.size() < options.max_seq_length) {
    if (impl_->pad_id < 0) {
      fail_input("{}: padding to max_length needs a {} token, which the vocabulary lacks", impl_->source,
                 impl_->bert_spec ? impl_->bert_spec->special.pad : std::string("padding"));
    }
    out.input_ids.resize(options.max_seq_length, impl_->pad_id);
    out.token_type_ids.resize(options.max_seq_length, 0);  // HF's pad_token_type_id
    out.attention_mask.resize(options.max_seq_length, 0);
  }
}

void HfTokenizer::encode_steps(std::string_view text_a, std::optional<std::string_view> text_b, std::size_t max_length,
                               Encoding& out) const {
  SequenceTokens a = encode_sequence(*impl_, text_a, -1, 0, "text_a");
  SequenceTokens b;
  if (text_b) b = encode_sequence(*impl_, *text_b, -1, 1, "text_b");
  SequenceTokens* pb = text_b ? &b : nullptr;
  const SequenceTokens t = impl_->finish(std::move(a), pb, true, Truncation{max_length});
  out.input_ids = t.ids;
  out.token_type_ids = t.type_ids;
  out.attention_mask.assign(t.size(), 1);
}

void HfTokenizer::encode_ids(std::string_view text_a, std::optional<std::string_view> text_b, std::size_t max_length,
                             Encoding& out) const {
  thread_local std::vector<std::int32_t> a;  // reused, so that a dataset allocates only while they grow
  thread_local std::vector<std::int32_t> b;
  a.clear();
  b.clear();
  pipeline::tokenize_ids(*impl_, text_a, a, "text_a");
  if (text_b) pipeline::tokenize_ids(*impl_, *text_b, b, "text_b");
  std::size_t keep_a = a.size();
  std::size_t keep_b = b.size();
  if (max_length > 0) {
    const std::size_t specials = num_special_tokens(text_b.has_value());
    if (max_length < specials) fail_input("max_seq_length {} is below the {} special tokens the tokenizer adds", max_length, specials);
    if (text_b) std::tie(keep_a, keep_b) = longest_first_lengths(keep_a, keep_b, max_length - specials);
    else keep_a = std::min(keep_a, max_length - specials);
  }
  const std::span<const std::int32_t> kept_b(b.data(), keep_b);
  impl_->layout.assemble(std::span<const std::int32_t>(a.data(), keep_a),
                         text_b ? std::optional(kept_b) : std::nullopt, out);
}

std::size_t HfTokenizer::assemble(std::span<const std::int32_t> a, std::optional<std::span<const std::int32_t>> b,
                                  Encoding& out) const {
  const auto sequence = [](std::span<const std::int32_t> ids, std::int32_t which) {
    SequenceTokens s;
    for (const std::int32_t id : ids) {
      s.ids.push_back(id);
      s.tokens.emplace_back();
      s.offsets.push_back({0, 0});
      s.word_ids.push_back(-1);
      s.type_ids.push_back(0);
      s.special.push_back(0);
      s.sequence.push_back(which);
    }
    return s;
  };
  const auto names = impl_->names();
  const std::int32_t wanted = b ? 1 : 0;
  const auto first_of = [&](const SequenceTokens& t) {
    std::size_t i = 0;
    while (i < t.size() && t.sequence[i] != wanted) ++i;
    return i;
  };
  SequenceTokens sb = sequence(b ? *b : std::span<const std::int32_t>(), 1);
  const SequenceTokens t = impl_->post_processor->process(sequence(a, 0), b ? &sb : nullptr, true, names);
  std::size_t first = first_of(t);
  if (first == t.size()) {  // the sequence is empty: where a one-token stand-in lands
    const std::int32_t marker = 0;
    SequenceTokens one = sequence(std::span<const std::int32_t>(&marker, 1), wanted);
    const SequenceTokens probe = b ? impl_->post_processor->process(sequence(a, 0), &one, true, names)
                                   : impl_->post_processor->process(one, nullptr, true, names);
    first = first_of(probe);
  }
  out.input_ids = t.ids;
  out.token_type_ids = t.type_ids;
  out.attention_mask.assign(t.size(), 1);
  return first;
}

std::vector<std::string> HfTokenizer::tokens(const std::vector<std::int32_t>& ids) const {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (const std::int32_t id : ids) out.push_back(impl_->token(id));
  return out;
}

void HfTokenizer::save(const fs::path& folder, std::size_t model_max_length) const {
  if (impl_->bert_spec) return write_tokenizer_files(folder, *impl_->bert_spec, model_max_length);
  for (const fs::path& file : impl_->files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) fail_input("cannot read {} to copy it beside the model", file.string());
    const std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string name = file.filename().string();
    if (name.ends_with(".model") && name != "spm.model") name = "sentencepiece.bpe.model";
    else if (name.ends_with(".json") && name != "tokenizer_config.json" && name != "special_tokens_map.json" &&
             name != "vocab.json")
      name = "tokenizer.json";
    io::write_file_atomically(folder / name, contents);
  }
}

void HfTokenizer::encode_words(const std::vector<std::string>& words, std::size_t max_seq_length, Encoding& out,
                               std::vector<std::int32_t>& word_ids) const {
  const TokenizedText t = encode_words(words, nullptr, true, Truncation{max_seq_length, TruncationStrategy::kLongestFirst});
  out.input_ids = t.ids;
  out.token_type_ids = t.type_ids;
  out.attention_mask.assign(t.size(), 1);
  word_ids = t.word_ids;
}

}  // namespace shmtrain::text
