#include "shmtrain/text/bert_words.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

#include "shmtrain/common/error.hpp"
#include "shmtrain/text/unicode_rules.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text {
namespace {

// Texts are bounded so that word offsets fit WordList's 32-bit fields even after NFD and
// CJK spacing have grown the text (at most 4x per code point plus the separators).
constexpr std::size_t kMaxTextBytes = std::size_t{1} << 28;

// ASCII is most of the text in practice; its classes come from one table instead of the
// Unicode lookups (same answers as unicode_rules.hpp for every byte below 0x80).
enum class Ascii : std::uint8_t { kWord, kSpace, kControl, kControlSpace, kPunctuation };

constexpr Ascii ascii_class(unsigned c) {
  if (c == '\t' || c == '\n' || c == '\r' || c == ' ') return Ascii::kSpace;
  if (c == '\v' || c == '\f') return Ascii::kControlSpace;  // Cc, and White_Space
  if (c < 0x20 || c == 0x7F) return Ascii::kControl;
  if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) {
    return Ascii::kPunctuation;
  }
  return Ascii::kWord;
}

constexpr std::array<Ascii, 128> kAsciiClasses = [] {
  std::array<Ascii, 128> table{};
  for (unsigned c = 0; c < 128; ++c) table[c] = ascii_class(c);
  return table;
}();

// Builds the current word at the end of a WordList.
class WordBuilder {
 public:
  explicit WordBuilder(WordList& out) : out_(out) {}

  void append(char32_t cp) {
    if (!open_) {
      start_ = static_cast<std::uint32_t>(out_.bytes.size());
      chars_ = 0;
      open_ = true;
    }
    if (cp < 0x80) {
      out_.bytes.push_back(static_cast<char>(cp));
    } else {
      append_utf8(out_.bytes, cp);
    }
    ++chars_;
  }

  void close() {
    if (!open_) return;
    out_.words.push_back({start_, static_cast<std::uint32_t>(out_.bytes.size()) - start_, chars_});
    open_ = false;
  }

  void single(char32_t cp) {
    close();
    append(cp);
    close();
  }

 private:
  WordList& out_;
  bool open_ = false;
  std::uint32_t start_ = 0;
  std::uint32_t chars_ = 0;
};

// One pass over the text. NFD is applied character by character; its canonical ordering
// only permutes the non-starters (combining class > 0) that follow a starter, so those wait
// in marks_ until the next starter or word boundary, and starters go out at once.
class Splitter {
 public:
  Splitter(const NormalizerOptions& options, WordList& out)
      : options_(options), strip_(options.strips_accents()), word_(out) {}

  void run(std::string_view text) {
    std::size_t pos = 0;
    while (pos < text.size()) {
      char32_t cp;
      const std::size_t length = decode_utf8(text, pos, cp);
      if (length == 0) {
        fail_input(
            "invalid UTF-8 at byte {} (0x{:02X}): re-encode the input as UTF-8 "
            "(e.g. `iconv -f latin1 -t utf-8`)",
            pos, static_cast<unsigned char>(text[pos]));
      }
      pos += length;
      character(cp);
    }
    end_word();
  }

 private:
  void character(char32_t cp) {
    if (cp < 0x80) {
      ascii(cp);
      return;
    }
    if (options_.clean_text && (cp == 0 || cp == 0xFFFD || is_bert_control(cp))) return;
    if (is_bert_whitespace(cp)) {
      end_word();
    } else if (options_.handle_chinese_chars && is_cjk_ideograph(cp)) {
      end_word();
      normalize(cp);
      end_word();
    } else {
      normalize(cp);
    }
  }

  void ascii(char32_t cp) {
    switch (kAsciiClasses[cp]) {
      case Ascii::kControl:
        if (options_.clean_text) return;
        break;
      case Ascii::kControlSpace:
        if (options_.clean_text) return;
        end_word();
        return;
      case Ascii::kSpace:
        end_word();
        return;
      case Ascii::kPunctuation:
        flush_marks();
        word_.single(cp);
        return;
      case Ascii::kWord:
        break;
    }
    flush_marks();
    word_.append(options_.lowercase && cp >= U'A' && cp <= U'Z' ? cp + 32 : cp);
  }

  // Lower-casing, then NFD and accent stripping, of one input character.
  void normalize(char32_t cp) {
    char32_t lowered[2] = {cp, 0};
    const int n_lowered = options_.lowercase ? to_lower_full(cp, lowered) : 1;
    for (int i = 0; i < n_lowered; ++i) {
      if (!strip_) {
        emit(lowered[i]);
        continue;
      }
      char32_t parts[4];
      const int n_parts = decompose_canonical(lowered[i], parts);
      for (int j = 0; j < n_parts; ++j) {
        if (combining_class(parts[j]) == 0) {
          flush_marks();
          emit(parts[j]);
        } else {
          marks_.push_back(parts[j]);
        }
      }
    }
  }

  void emit(char32_t cp) {
    if (strip_ && is_nonspacing_mark(cp)) return;
    if (is_bert_punctuation(cp)) {
      word_.single(cp);
    } else {
      word_.append(cp);
    }
  }

  // Canonical ordering: a stable sort of the pending non-starters by combining class. A run
  // is a few marks in real text but can be any length in a crafted one, so the sort must
  // not be quadratic.
  void flush_marks() {
    if (marks_.empty()) return;
    std::stable_sort(marks_.begin(), marks_.end(),
                     [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
    for (const char32_t mark : marks_) emit(mark);
    marks_.clear();
  }

  void end_word() {
    flush_marks();
    word_.close();
  }

  const NormalizerOptions& options_;
  const bool strip_;
  WordBuilder word_;
  std::vector<char32_t> marks_;  // non-starters waiting for canonical ordering
};

}  // namespace

void split_bert_words(const NormalizerOptions& options, std::string_view text, WordList& out) {
  if (text.size() > kMaxTextBytes) {
    fail_input("text of {} bytes is too long to tokenize (limit {} bytes)", text.size(), kMaxTextBytes);
  }
  Splitter(options, out).run(text);
}

std::vector<std::string> split_bert_words(const NormalizerOptions& options, std::string_view text) {
  WordList list;
  split_bert_words(options, text, list);
  std::vector<std::string> words;
  words.reserve(list.words.size());
  for (const WordList::Word& word : list.words) words.emplace_back(list.text(word));
  return words;
}

}  // namespace shmtrain::text
