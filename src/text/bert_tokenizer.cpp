#include "shmtrain/text/bert_tokenizer.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/text/tokenizer_writer.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text {
namespace {

// Buffers reused across calls on the same thread, so that encoding a dataset allocates only
// while they grow to the longest example.
struct Scratch {
  WordList words;
  std::vector<WordPiece::PieceSpan> pieces;
  std::vector<std::int32_t> ids_a;
  std::vector<std::int32_t> ids_b;
};

Scratch& thread_scratch() {
  thread_local Scratch scratch;
  return scratch;
}

std::int32_t required_id(const TokenizerSpec& spec, const std::string& token) {
  if (!spec.vocab) fail_input("{}: no vocabulary loaded", spec.source);
  const std::int32_t id = spec.vocab->find(token);
  if (id == Vocab::kNotFound) {
    fail_input("{}: the vocabulary has no {} token; a BERT vocabulary needs {}, {} and {}: is this a BERT "
               "vocab.txt / tokenizer.json?",
               spec.source, token, spec.special.cls, spec.special.sep, spec.special.unk);
  }
  return id;
}

std::vector<AddedTokenMatcher::Token> never_split_tokens(const TokenizerSpec& spec, std::int32_t unk_id) {
  std::vector<std::string> texts = {spec.special.cls, spec.special.sep, spec.special.pad, spec.special.unk,
                                    spec.special.mask};
  texts.insert(texts.end(), spec.special.extra.begin(), spec.special.extra.end());
  std::vector<AddedTokenMatcher::Token> tokens;
  for (std::string& text : texts) {
    const std::int32_t id = spec.vocab->find(text);
    tokens.push_back({std::move(text), id == Vocab::kNotFound ? unk_id : id});
  }
  return tokens;
}

}  // namespace

std::pair<std::size_t, std::size_t> longest_first_lengths(std::size_t length_a, std::size_t length_b,
                                                          std::size_t budget) {
  if (length_a + length_b <= budget) return {length_a, length_b};
  const bool a_is_longer = length_a > length_b;
  std::size_t shorter = a_is_longer ? length_b : length_a;
  std::size_t longer = shorter > budget ? shorter : std::max(shorter, budget - shorter);
  if (shorter + longer > budget) {
    shorter = budget / 2;
    longer = shorter + budget % 2;
  }
  return a_is_longer ? std::pair{longer, shorter} : std::pair{shorter, longer};
}

BertTokenizer::BertTokenizer(TokenizerSpec spec)
    : spec_(std::move(spec)),
      cls_id_(required_id(spec_, spec_.special.cls)),
      sep_id_(required_id(spec_, spec_.special.sep)),
      pad_id_(spec_.vocab ? spec_.vocab->find(spec_.special.pad) : Vocab::kNotFound),  // optional: -1 without
      unk_id_(required_id(spec_, spec_.special.unk)),
      basic_(spec_.normalizer),
      wordpiece_(spec_.vocab, unk_id_, spec_.max_input_chars_per_word),
      added_(never_split_tokens(spec_, unk_id_)) {}

BertTokenizer BertTokenizer::from_path(const std::filesystem::path& path, std::optional<bool> do_lower_case) {
  TokenizerSpec spec = load_tokenizer_spec(path);
  override_lowercase(spec, do_lower_case);
  return BertTokenizer(std::move(spec));
}

void BertTokenizer::tokenize(std::string_view text, std::vector<std::int32_t>& ids, std::string_view what) const {
  // Validated here, on the whole text, so the error gives the offset the user can find.
  check_utf8(text, what);
  WordList& words = thread_scratch().words;
  auto tokenize_segment = [&](std::string_view segment) {
    words.clear();
    basic_.split(segment, words);
    for (const WordList::Word& word : words.words) wordpiece_.tokenize(words.text(word), word.chars, ids);
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto match = added_.find(text, pos);
    if (!match) break;
    tokenize_segment(text.substr(pos, match->begin - pos));
    ids.push_back(match->id);
    pos = match->begin + match->size;
  }
  tokenize_segment(text.substr(std::min(pos, text.size())));
}

void BertTokenizer::tokenize_with_offsets(std::string_view text, std::vector<std::int32_t>& ids,
                                          std::vector<CharSpan>& offsets, std::string_view what) const {
  check_utf8(text, what);
  WordList& words = thread_scratch().words;
  std::vector<WordPiece::PieceSpan>& pieces = thread_scratch().pieces;
  std::uint32_t base = 0;  // the segment's first character in `text`
  auto tokenize_segment = [&](std::string_view segment) {
    words.clear();
    basic_.split_with_sources(segment, words);
    for (const WordList::Word& word : words.words) {
      pieces.clear();
      wordpiece_.tokenize(words.text(word), word.chars, ids, &pieces);
      for (const WordPiece::PieceSpan& piece : pieces) {
        const CharSpan first = words.sources[word.offset + piece.begin];
        const CharSpan last = words.sources[word.offset + piece.end - 1];
        offsets.push_back({base + first.begin, base + last.end});
      }
    }
    base += static_cast<std::uint32_t>(count_code_points(segment));
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto match = added_.find(text, pos);
    if (!match) break;
    tokenize_segment(text.substr(pos, match->begin - pos));
    ids.push_back(match->id);
    const auto chars = static_cast<std::uint32_t>(count_code_points(text.substr(match->begin, match->size)));
    offsets.push_back({base, base + chars});
    base += chars;
    pos = match->begin + match->size;
  }
  tokenize_segment(text.substr(std::min(pos, text.size())));
}

void BertTokenizer::encode(std::string_view text_a, std::optional<std::string_view> text_b,
                           const EncodeOptions& options, Encoding& out) const {
  const std::size_t n_special = text_b ? 3 : 2;
  if (options.max_seq_length > 0 && options.max_seq_length < n_special) {
    fail_input("max_seq_length {} is too small: {} needs at least {} positions for its special tokens",
               options.max_seq_length, text_b ? "a pair [CLS] a [SEP] b [SEP]" : "[CLS] text [SEP]", n_special);
  }
  if (options.pad_to_max_length && options.max_seq_length == 0) {
    fail_input("padding to max_seq_length needs a max_seq_length");
  }

  std::vector<std::int32_t>& ids_a = thread_scratch().ids_a;
  std::vector<std::int32_t>& ids_b = thread_scratch().ids_b;
  ids_a.clear();
  ids_b.clear();
  tokenize(text_a, ids_a, "text_a");
  if (text_b) tokenize(*text_b, ids_b, "text_b");

  std::size_t keep_a = ids_a.size();
  std::size_t keep_b = ids_b.size();
  if (options.max_seq_length > 0) {
    const std::size_t budget = options.max_seq_length - n_special;
    if (text_b) {
      std::tie(keep_a, keep_b) = longest_first_lengths(keep_a, keep_b, budget);
    } else {
      keep_a = std::min(keep_a, budget);
    }
  }

  out.input_ids.clear();
  out.input_ids.push_back(cls_id_);
  out.input_ids.insert(out.input_ids.end(), ids_a.begin(), ids_a.begin() + static_cast<std::ptrdiff_t>(keep_a));
  out.input_ids.push_back(sep_id_);
  const std::size_t first_segment = out.input_ids.size();
  if (text_b) {
    out.input_ids.insert(out.input_ids.end(), ids_b.begin(), ids_b.begin() + static_cast<std::ptrdiff_t>(keep_b));
    out.input_ids.push_back(sep_id_);
  }
  const std::size_t length = out.input_ids.size();
  out.token_type_ids.assign(length, 1);
  std::fill_n(out.token_type_ids.begin(), first_segment, 0);
  out.attention_mask.assign(length, 1);

  if (options.pad_to_max_length && length < options.max_seq_length && pad_id_ == Vocab::kNotFound) {
    fail_input("{}: padding to max_length needs a {} token, which the vocabulary lacks", spec_.source, spec_.special.pad);
  }
  if (options.pad_to_max_length && length < options.max_seq_length) {
    out.input_ids.resize(options.max_seq_length, pad_id_);
    out.token_type_ids.resize(options.max_seq_length, 0);  // HF's pad_token_type_id
    out.attention_mask.resize(options.max_seq_length, 0);
  }
}

Encoding BertTokenizer::encode(std::string_view text_a, std::optional<std::string_view> text_b,
                               const EncodeOptions& options) const {
  Encoding out;
  encode(text_a, text_b, options, out);
  return out;
}

std::vector<std::string> BertTokenizer::tokens(const std::vector<std::int32_t>& ids) const {
  std::vector<std::string> out;
  out.reserve(ids.size());
  for (const std::int32_t id : ids) {
    const bool known = id >= 0 && static_cast<std::size_t>(id) < spec_.vocab->size();
    out.emplace_back(known ? spec_.vocab->token(id) : std::string_view(spec_.special.unk));
  }
  return out;
}

std::size_t BertTokenizer::assemble(std::span<const std::int32_t> a, std::optional<std::span<const std::int32_t>> b,
                                   Encoding& out) const {
  out.input_ids.clear();
  out.input_ids.push_back(cls_id_);
  out.input_ids.insert(out.input_ids.end(), a.begin(), a.end());
  out.input_ids.push_back(sep_id_);
  const std::size_t b_begin = b ? out.input_ids.size() : 1;
  if (b) {
    out.input_ids.insert(out.input_ids.end(), b->begin(), b->end());
    out.input_ids.push_back(sep_id_);
  }
  out.token_type_ids.assign(out.input_ids.size(), 0);
  if (b) std::fill(out.token_type_ids.begin() + static_cast<std::ptrdiff_t>(b_begin), out.token_type_ids.end(), 1);
  out.attention_mask.assign(out.input_ids.size(), 1);
  return b_begin;
}

void BertTokenizer::encode_words(const std::vector<std::string>& words, std::size_t max_seq_length, Encoding& out,
                                 std::vector<std::int32_t>& word_ids) const {
  if (max_seq_length > 0 && max_seq_length < 2) {
    fail_input("max_seq_length {} is below the 2 special tokens [CLS] and [SEP]", max_seq_length);
  }
  std::vector<std::int32_t> ids;
  std::vector<std::int32_t> owners;
  for (std::size_t w = 0; w < words.size(); ++w) {
    tokenize(words[w], ids, fmt::format("word {}", w + 1));
    owners.resize(ids.size(), static_cast<std::int32_t>(w));
  }
  if (max_seq_length > 0 && ids.size() > max_seq_length - 2) {
    ids.resize(max_seq_length - 2);
    owners.resize(max_seq_length - 2);
  }
  assemble(ids, std::nullopt, out);
  word_ids.assign(1, -1);
  word_ids.insert(word_ids.end(), owners.begin(), owners.end());
  word_ids.push_back(-1);
}

std::string BertTokenizer::description() const {
  return fmt::format("WordPiece, {} tokens, {} ({})", spec_.vocab->size(),
                     spec_.normalizer.lowercase ? "lower-cased" : "cased", spec_.lowercase_origin);
}

void BertTokenizer::save(const std::filesystem::path& folder, std::size_t model_max_length) const {
  write_tokenizer_files(folder, spec_, model_max_length);
}

}  // namespace shmtrain::text
