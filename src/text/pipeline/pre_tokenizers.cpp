#include "pre_tokenizers.hpp"

#include <fmt/format.h>

#include "regex.hpp"
#include "shmtrain/text/unicode_rules.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text::pipeline {

using Ranges = std::vector<std::pair<std::size_t, std::size_t>>;

void split_at(const AlignedText& text, const Ranges& matches, SplitBehavior behavior, bool invert,
              std::vector<AlignedText>& out) {
  // Every character in exactly one range, flagged as delimiter or not.
  std::vector<std::pair<std::pair<std::size_t, std::size_t>, bool>> parts;
  std::size_t at = 0;
  for (const auto& [begin, end] : matches) {
    if (begin > at) parts.push_back({{at, begin}, invert});
    parts.push_back({{begin, end}, !invert});
    at = end;
  }
  if (at < text.size()) parts.push_back({{at, text.size()}, invert});

  std::vector<std::pair<std::size_t, std::size_t>> pieces;
  switch (behavior) {
    case SplitBehavior::kRemoved:
      for (const auto& [range, delim] : parts)
        if (!delim) pieces.push_back(range);
      break;
    case SplitBehavior::kIsolated:
      for (const auto& [range, delim] : parts) pieces.push_back(range);
      break;
    case SplitBehavior::kContiguous: {
      bool previous = false;
      for (const auto& [range, delim] : parts) {
        if (delim == previous && !pieces.empty()) pieces.back().second = range.second;
        else pieces.push_back(range);
        previous = delim;
      }
      break;
    }
    case SplitBehavior::kMergedWithPrevious: {
      bool previous = false;
      for (const auto& [range, delim] : parts) {
        if (delim && !previous && !pieces.empty()) pieces.back().second = range.second;
        else pieces.push_back(range);
        previous = delim;
      }
      break;
    }
    case SplitBehavior::kMergedWithNext: {
      bool previous = false;
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (it->second && !previous && !pieces.empty()) pieces.back().first = it->first.first;
        else pieces.push_back(it->first);
        previous = it->second;
      }
      std::reverse(pieces.begin(), pieces.end());
      break;
    }
  }
  for (const auto& [begin, end] : pieces)
    if (end > begin) out.push_back(text.slice(begin, end));
}

Ranges char_matches(const AlignedText& text, const std::function<bool(char32_t)>& test) {
  Ranges out;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (test(text.chars[i])) out.emplace_back(i, i + 1);
  return out;
}

namespace {

void split_each(std::vector<AlignedText>& pieces, const std::function<void(const AlignedText&, std::vector<AlignedText>&)>& f) {
  std::vector<AlignedText> out;
  out.reserve(pieces.size());
  for (const AlignedText& piece : pieces) f(piece, out);
  pieces = std::move(out);
}

SplitBehavior read_behavior(const JsonFields& f, const std::string& key, SplitBehavior fallback) {
  if (!f.has(key)) return fallback;
  const std::string name = f.string(key);
  if (name == "Removed") return SplitBehavior::kRemoved;
  if (name == "Isolated") return SplitBehavior::kIsolated;
  if (name == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
  if (name == "MergedWithNext") return SplitBehavior::kMergedWithNext;
  if (name == "Contiguous") return SplitBehavior::kContiguous;
  f.fail(key, fmt::format("unknown behavior '{}'; expected Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous", name));
}

class BertPreTokenizer final : public PreTokenizer {
 public:
  void split(std::vector<AlignedText>& pieces) const override {
    split_each(pieces, [](const AlignedText& piece, std::vector<AlignedText>& out) {
      std::vector<AlignedText> words;
      split_at(piece, char_matches(piece, is_unicode_whitespace), SplitBehavior::kRemoved, false, words);
      for (const AlignedText& w : words) split_at(w, char_matches(w, is_bert_punctuation), SplitBehavior::kIsolated, false, out);
    });
  }
  bool is_bert() const override { return true; }
};

// tokenizers' `\w+|[^\w\s]+` (Rust's \w: letters, marks, digits, connector punctuation and
// the joiners), written out: PCRE2's \w leaves out the marks.
class Whitespace final : public PreTokenizer {
 public:
  void split(std::vector<AlignedText>& pieces) const override {
    split_each(pieces, [](const AlignedText& piece, std::vector<AlignedText>& out) {
      const std::u32string& s = piece.chars;
      std::vector<std::pair<std::size_t, std::size_t>> runs;
      for (std::size_t i = 0; i < s.size();) {
        if (is_unicode_whitespace(s[i])) {
          ++i;
          continue;
        }
        const bool word = is_word_char(s[i]);
        std::size_t j = i + 1;
        while (j < s.size() && !is_unicode_whitespace(s[j]) && is_word_char(s[j]) == word) ++j;
        runs.emplace_back(i, j);
        i = j;
      }
      split_at(piece, runs, SplitBehavior::kRemoved, true, out);
    });
  }
};

class WhitespaceSplit final : public PreTokenizer {
 public:
  void split(std::vector<AlignedText>& pieces) const override {
    split_each(pieces, [](const AlignedText& piece, std::vector<AlignedText>& out) {
      split_at(piece, char_matches(piece, is_unicode_whitespace), SplitBehavior::kRemoved, false, out);
    });
  }
};

class Metaspace final : public PreTokenizer {
 public:
  explicit Metaspace(const JsonFields& f) : split_(f.boolean_or("split", true)) {
    const AlignedText r = aligned_from_utf8(f.string_or("replacement", "\u2581"));
    if (r.size() != 1) f.fail("replacement", "must be one character");
    replacement_ = r.chars.front();
    if (f.has("prepend_scheme")) {
      const std::string scheme = f.string("prepend_scheme");
      if (scheme == "always") scheme_ = Scheme::kAlways;
      else if (scheme == "first") scheme_ = Scheme::kFirst;
      else if (scheme == "never") scheme_ = Scheme::kNever;
      else f.fail("prepend_scheme", fmt::format("unknown scheme '{}'; expected always, first or never", scheme));
    } else {
      scheme_ = f.boolean_or("add_prefix_space", true) ? Scheme::kAlways : Scheme::kNever;
    }
  }

  void split(std::vector<AlignedText>& pieces) const override {
    split_each(pieces, [&](const AlignedText& piece, std::vector<AlignedText>& out) {
      AlignedText text = piece;
      for (char32_t& c : text.chars)
        if (c == U' ') c = replacement_;
      const bool prepend = scheme_ == Scheme::kAlways || (scheme_ == Scheme::kFirst && !text.empty() && text.spans.front().begin == 0);
      if (prepend && !text.empty() && text.chars.front() != replacement_) {
        text.chars.insert(text.chars.begin(), replacement_);
        text.spans.insert(text.spans.begin(), text.spans.front());
      }
      if (split_) {
        const char32_t r = replacement_;
        split_at(text, char_matches(text, [r](char32_t c) { return c == r; }), SplitBehavior::kMergedWithNext, false, out);
      } else if (!text.empty()) {
        out.push_back(std::move(text));
      }
    });
  }

 private:
  enum class Scheme { kAlways, kFirst, kNever };
  char32_t replacement_ = U'\u2581';
  Scheme scheme_ = Scheme::kAlways;
  bool split_;
};

bool is_punctuation_char(char32_t c) {
  return (c < 0x80 && c > 0x20 && c != 0x7F && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) ||
         is_unicode_punctuation(c);
}

class Punctuation final : public PreTokenizer {
 public:
  explicit Punctuation(const JsonFields& f) : behavior_(read_behavior(f, "behavior", SplitBehavior::kIsolated)) {}
  void split(std::vector<AlignedText>& pieces) const override {
    split_each(pieces, [&](const AlignedText& piece, std::vector<AlignedText>& out) {
      split_at(piece, char_matches(piece, is_punctuation_char), behavior_, false, out);
    });
  }

 private:
  SplitBehavior behavior_;
};

class Digits final : public PreTokenizer {
 public:
  explicit Digits(const JsonFields& f) : individual_(f.boolean_or("individual_digits", false)) {}
  void split(std::vector<AlignedText>& pieces) const override {
    split_each(pieces, [&](const AlignedText& piece, std::vector<AlignedText>& out) {
      split_at(piece, char_matches(piece, is_numeric), individual_ ? SplitBehavior::kIsolated : SplitBehavior::kContiguous,
               false, out);
    });
  }

 private:
  bool individual_;
};

class Split final : public PreTokenizer {
 public:
  explicit Split(const JsonFields& f)
      : pattern_(read_pattern(f, "pattern")),
        behavior_(read_behavior(f, "behavior", SplitBehavior::kIsolated)),
        invert_(f.boolean_or("invert", false)) {
    if (!f.has("behavior")) f.fail("behavior", "is missing");
  }
  void split(std::vector<AlignedText>& pieces) const override {
    split_each(pieces, [&](const AlignedText& piece, std::vector<AlignedText>& out) {
      split_at(piece, pattern_.find_all(piece.chars), behavior_, invert_, out);
    });
  }

 private:
  Regex pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

class CharDelimiterSplit final : public PreTokenizer {
 public:
  explicit CharDelimiterSplit(const JsonFields& f) {
    const AlignedText d = aligned_from_utf8(f.string("delimiter"));
    if (d.size() != 1) f.fail("delimiter", "must be one character");
    delimiter_ = d.chars.front();
  }
  void split(std::vector<AlignedText>& pieces) const override {
    const char32_t d = delimiter_;
    split_each(pieces, [d](const AlignedText& piece, std::vector<AlignedText>& out) {
      split_at(piece, char_matches(piece, [d](char32_t c) { return c == d; }), SplitBehavior::kRemoved, false, out);
    });
  }

 private:
  char32_t delimiter_ = 0;
};

class PreTokenizerSequence final : public PreTokenizer {
 public:
  explicit PreTokenizerSequence(const JsonFields& f) {
    const nlohmann::json& list = f.array("pretokenizers");
    for (std::size_t i = 0; i < list.size(); ++i) steps_.push_back(read_pre_tokenizer(f.element(list[i], "pretokenizers", i)));
  }
  void split(std::vector<AlignedText>& pieces) const override {
    for (const auto& step : steps_) step->split(pieces);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

}  // namespace

std::unique_ptr<PreTokenizer> read_pre_tokenizer(const JsonFields& f) {
  const std::string type = f.string("type");
  if (type == "ByteLevel") return make_byte_level(f);
  if (type == "BertPreTokenizer") return std::make_unique<BertPreTokenizer>();
  if (type == "Whitespace") return std::make_unique<Whitespace>();
  if (type == "WhitespaceSplit") return std::make_unique<WhitespaceSplit>();
  if (type == "Metaspace") return std::make_unique<Metaspace>(f);
  if (type == "Punctuation") return std::make_unique<Punctuation>(f);
  if (type == "Digits") return std::make_unique<Digits>(f);
  if (type == "Split") return std::make_unique<Split>(f);
  if (type == "CharDelimiterSplit") return std::make_unique<CharDelimiterSplit>(f);
  if (type == "Sequence") return std::make_unique<PreTokenizerSequence>(f);
  f.fail("type", fmt::format("unknown pre-tokenizer '{}'; shmtrain reads ByteLevel, BertPreTokenizer, Whitespace, "
                             "WhitespaceSplit, Metaspace, Punctuation, Digits, Split, CharDelimiterSplit and Sequence",
                             type));
}

bool is_any_punctuation(char32_t c) { return is_punctuation_char(c); }

}  // namespace shmtrain::text::pipeline
