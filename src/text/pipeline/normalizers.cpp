#include "normalizers.hpp"

#include <array>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <utf8proc.h>

#include "precompiled_charsmap.hpp"
#include "regex.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/text/unicode_rules.hpp"
#include "shmtrain/text/utf8.hpp"
#include "transform.hpp"

namespace shmtrain::text::pipeline {
namespace {

std::u32string decode(std::string_view text) {
  const AlignedText a = aligned_from_utf8(text);
  return a.chars;
}

void lowercase(AlignedText& text) {
  AlignedText out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char32_t lower[2];
    const int n = to_lower_full(text.chars[i], lower);
    for (int k = 0; k < n; ++k) out.push(lower[k], text.spans[i]);
  }
  text = std::move(out);
}

// BertNormalizer drops the non-spacing marks (Mn); the StripAccents normalizer every mark
// (Mn, Mc, Me: tokenizers' is_combining_mark), so Devanagari's vowel signs go too.
void strip_marks(AlignedText& text, bool all_marks) {
  AlignedText out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char32_t c = text.chars[i];
    bool mark = is_nonspacing_mark(c);
    if (all_marks && !mark) {
      const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(c));
      mark = cat == UTF8PROC_CATEGORY_MC || cat == UTF8PROC_CATEGORY_ME;
    }
    if (!mark) out.push(c, text.spans[i]);
  }
  text = std::move(out);
}

class BertNormalizer final : public Normalizer {
 public:
  explicit BertNormalizer(const JsonFields& f) {
    options_.clean_text = f.boolean_or("clean_text", true);
    options_.handle_chinese_chars = f.boolean_or("handle_chinese_chars", true);
    options_.lowercase = f.boolean_or("lowercase", true);
    options_.strip_accents = f.optional_boolean("strip_accents");
  }

  void normalize(AlignedText& text) const override {
    AlignedText out;
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char32_t c = text.chars[i];
      if (options_.clean_text) {
        if (c == 0 || c == 0xFFFD || is_bert_control(c)) continue;
        if (is_bert_whitespace(c)) {
          out.push(U' ', text.spans[i]);
          continue;
        }
      }
      if (options_.handle_chinese_chars && is_cjk_ideograph(c)) {
        out.push(U' ', text.spans[i]);
        out.push(c, text.spans[i]);
        out.push(U' ', text.spans[i]);
        continue;
      }
      out.push(c, text.spans[i]);
    }
    if (options_.strips_accents()) {
      unicode_normalize(out, UnicodeForm::kNfd);
      strip_marks(out, false);
    }
    if (options_.lowercase) lowercase(out);
    text = std::move(out);
  }

  const NormalizerOptions* bert_options() const override { return &options_; }

 private:
  NormalizerOptions options_;
};

class UnicodeNormalizer final : public Normalizer {
 public:
  explicit UnicodeNormalizer(UnicodeForm form) : form_(form) {}
  void normalize(AlignedText& text) const override { unicode_normalize(text, form_); }

 private:
  UnicodeForm form_;
};

class Lowercase final : public Normalizer {
 public:
  void normalize(AlignedText& text) const override { lowercase(text); }
};

class StripAccents final : public Normalizer {
 public:
  void normalize(AlignedText& text) const override { strip_marks(text, true); }
};

class Strip final : public Normalizer {
 public:
  explicit Strip(const JsonFields& f) : left_(f.boolean_or("strip_left", true)), right_(f.boolean_or("strip_right", true)) {}
  void normalize(AlignedText& text) const override {
    std::size_t begin = 0;
    std::size_t end = text.size();
    if (left_) {
      while (begin < end && is_unicode_whitespace(text.chars[begin])) ++begin;
    }
    if (right_) {
      while (end > begin && is_unicode_whitespace(text.chars[end - 1])) --end;
    }
    text = text.slice(begin, end);
  }

 private:
  bool left_, right_;
};

// Each match's characters give way to `content`, whose characters all take the span of the
// match's last character (tokenizers removes the match, then inserts after what it removed).
class Replace final : public Normalizer {
 public:
  explicit Replace(const JsonFields& f) : pattern_(read_pattern(f, "pattern")), content_(decode(f.string_or("content", ""))) {}
  void normalize(AlignedText& text) const override {
    const auto matches = pattern_.find_all(text.chars);
    if (matches.empty()) return;
    AlignedText out;
    std::size_t at = 0;
    for (const auto& [begin, end] : matches) {
      for (; at < begin; ++at) out.push(text.chars[at], text.spans[at]);
      for (const char32_t c : content_) out.push(c, text.spans[end - 1]);
      at = end;
    }
    for (; at < text.size(); ++at) out.push(text.chars[at], text.spans[at]);
    text = std::move(out);
  }

 private:
  Regex pattern_;
  std::u32string content_;
};

class Prepend final : public Normalizer {
 public:
  explicit Prepend(const JsonFields& f) : prepend_(decode(f.string("prepend"))) {}
  void normalize(AlignedText& text) const override {
    if (text.empty()) return;
    AlignedText out;
    for (const char32_t c : prepend_) out.push(c, text.spans.front());
    out.chars += text.chars;
    out.spans.insert(out.spans.end(), text.spans.begin(), text.spans.end());
    text = std::move(out);
  }

 private:
  std::u32string prepend_;
};

std::string base64_decode(const std::string& in, const JsonFields& f, const std::string& key) {
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (const char ch : in) {
    int v;
    if (ch >= 'A' && ch <= 'Z') v = ch - 'A';
    else if (ch >= 'a' && ch <= 'z') v = ch - 'a' + 26;
    else if (ch >= '0' && ch <= '9') v = ch - '0' + 52;
    else if (ch == '+') v = 62;
    else if (ch == '/') v = 63;
    else if (ch == '=') break;
    else f.fail(key, fmt::format("is not base64: character '{}'", ch));
    buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFF));
    }
  }
  return out;
}

// tokenizers' Precompiled: grapheme by grapheme, a grapheme under 6 bytes is replaced whole
// when the map knows it, otherwise each of its characters is looked up alone. A replacement's
// k-th character takes the span of the replaced k-th (the last one's beyond them).
class Precompiled final : public Normalizer {
 public:
  explicit Precompiled(const JsonFields& f)
      : map_(f.has("precompiled_charsmap")
                 ? std::optional<PrecompiledCharsmap>(std::in_place,
                                                      base64_decode(f.string("precompiled_charsmap"), f, "precompiled_charsmap"),
                                                      fmt::format("{}: {}", f.file(), f.key_path("precompiled_charsmap")))
                 : std::nullopt) {
    if (!map_) return;
    for (std::size_t c = 0; c < ascii_.size(); ++c) {
      const char byte = static_cast<char>(c);
      if (const auto r = map_->transform(std::string_view(&byte, 1))) ascii_[c] = decode(*r);
    }
  }

  void normalize(AlignedText& text) const override {
    if (!map_) return;
    AlignedText out;
    out.chars.reserve(text.size());
    out.spans.reserve(text.size());
    const std::size_t n = text.size();
    for (std::size_t begin = 0; begin < n;) {
      // Two ASCII characters always have a grapheme break between them, but CR LF (Unicode's
      // GB3-GB5, GB999): an ASCII character followed by one is a grapheme of its own, whose
      // replacement ascii_ holds.
      const char32_t c = text.chars[begin];
      const char32_t next = begin + 1 < n ? text.chars[begin + 1] : U'\0';
      if (c < 0x80 && (begin + 1 == n || (next < 0x80 && !(c == U'\r' && next == U'\n')))) {
        if (const auto& r = ascii_[c]) {
          for (const char32_t rc : *r) out.push(rc, text.spans[begin]);
        } else {
          out.push(c, text.spans[begin]);
        }
        ++begin;
        continue;
      }
      std::size_t end = begin + 1;
      utf8proc_int32_t state = 0;
      const auto is_break = [&](std::size_t at) {
        return utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(text.chars[at - 1]),
                                                static_cast<utf8proc_int32_t>(text.chars[at]), &state);
      };
      while (end < n && !is_break(end)) ++end;
      grapheme(text, begin, end, out);
      begin = end;
    }
    text = std::move(out);
  }

 private:
  void emit(const AlignedText& text, std::size_t begin, std::size_t end, std::string_view replacement,
            AlignedText& out) const {
    const AlignedText r = aligned_from_utf8(replacement);
    for (std::size_t k = 0; k < r.size(); ++k) out.push(r.chars[k], text.spans[std::min(begin + k, end - 1)]);
  }

  void grapheme(const AlignedText& text, std::size_t begin, std::size_t end, AlignedText& out) const {
    const std::string bytes = text.utf8(begin, end);
    if (bytes.size() < 6) {
      if (const auto r = map_->transform(bytes)) {
        emit(text, begin, end, *r, out);
        return;
      }
    }
    for (std::size_t i = begin; i < end; ++i) {
      const std::string one = text.utf8(i, i + 1);
      if (const auto r = map_->transform(one)) {
        emit(text, i, i + 1, *r, out);
      } else {
        out.push(text.chars[i], text.spans[i]);
      }
    }
  }

  std::optional<PrecompiledCharsmap> map_;
  std::array<std::optional<std::u32string>, 128> ascii_;  // the map's replacement of each ASCII character
};

class NormalizerSequence final : public Normalizer {
 public:
  explicit NormalizerSequence(const JsonFields& f) {
    const nlohmann::json& list = f.array("normalizers");
    for (std::size_t i = 0; i < list.size(); ++i) steps_.push_back(read_normalizer(f.element(list[i], "normalizers", i)));
  }
  void normalize(AlignedText& text) const override {
    for (const auto& step : steps_) step->normalize(text);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace

std::unique_ptr<Normalizer> read_normalizer(const JsonFields& f) {
  const std::string type = f.string("type");
  if (type == "BertNormalizer") return std::make_unique<BertNormalizer>(f);
  if (type == "NFC") return std::make_unique<UnicodeNormalizer>(UnicodeForm::kNfc);
  if (type == "NFD") return std::make_unique<UnicodeNormalizer>(UnicodeForm::kNfd);
  if (type == "NFKC") return std::make_unique<UnicodeNormalizer>(UnicodeForm::kNfkc);
  if (type == "NFKD") return std::make_unique<UnicodeNormalizer>(UnicodeForm::kNfkd);
  if (type == "Lowercase") return std::make_unique<Lowercase>();
  if (type == "StripAccents") return std::make_unique<StripAccents>();
  if (type == "Strip") return std::make_unique<Strip>(f);
  if (type == "Replace") return std::make_unique<Replace>(f);
  if (type == "Prepend") return std::make_unique<Prepend>(f);
  if (type == "Precompiled") return std::make_unique<Precompiled>(f);
  if (type == "Sequence") return std::make_unique<NormalizerSequence>(f);
  f.fail("type",
         fmt::format("unknown normalizer '{}'; shmtrain reads BertNormalizer, NFC, NFD, NFKC, NFKD, Lowercase, "
                     "StripAccents, Strip, Replace, Prepend, Precompiled and Sequence",
                     type));
}

}  // namespace shmtrain::text::pipeline
