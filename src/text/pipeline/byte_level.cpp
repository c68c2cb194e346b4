// ByteLevel (tokenizers' pre_tokenizers/byte_level): GPT-2's pattern splits the text (an
// optional space first), and each piece's bytes become GPT-2's byte characters. The pattern
// runs written out for ASCII text (most of any English corpus) and on PCRE2 otherwise.
#include <array>

#include "pre_tokenizers.hpp"
#include "regex.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text::pipeline {

using Ranges = std::vector<std::pair<std::size_t, std::size_t>>;

namespace {

const std::array<char32_t, 256>& byte_alphabet() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      t[static_cast<std::size_t>(b)] = printable ? static_cast<char32_t>(b) : next++;
    }
    return t;
  }();
  return table;
}

// GPT-2's pattern over ASCII text, written out (PCRE2's \s, \p{L}, \p{N} on ASCII: the six
// spaces \t \n \v \f \r and ' ', A-Z a-z, 0-9). At each position the first alternative that
// matches wins, as in the regular expression: a contraction; an optional space and a run of
// letters, of digits or of other characters; whitespace up to the last one before a
// non-space (which goes to the next piece), or all of it at the end or when it is one character.
enum class AsciiClass : unsigned char { kSpace, kLetter, kDigit, kOther };

AsciiClass ascii_class(char32_t c) {
  if (c == U' ' || (c >= 0x09 && c <= 0x0D)) return AsciiClass::kSpace;
  if ((c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z')) return AsciiClass::kLetter;
  if (c >= U'0' && c <= U'9') return AsciiClass::kDigit;
  return AsciiClass::kOther;
}

std::size_t contraction_length(const std::u32string& s, std::size_t i) {
  if (s[i] != U'\'' || i + 1 >= s.size()) return 0;
  const char32_t a = s[i + 1];
  if (a == U's' || a == U't' || a == U'm' || a == U'd') return 2;
  if (i + 2 >= s.size()) return 0;
  const char32_t b = s[i + 2];
  if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) return 3;
  return 0;
}

}  // namespace

bool gpt2_matches_ascii(const std::u32string& s, Ranges& out) {
  for (const char32_t c : s)
    if (c >= 0x80) return false;
  const std::size_t n = s.size();
  const auto run_end = [&](std::size_t j, AsciiClass cls) {
    while (j < n && ascii_class(s[j]) == cls) ++j;
    return j;
  };
  for (std::size_t i = 0; i < n;) {
    std::size_t end;
    if (const std::size_t length = contraction_length(s, i); length > 0) {
      end = i + length;
    } else if (ascii_class(s[i]) != AsciiClass::kSpace) {
      end = run_end(i + 1, ascii_class(s[i]));
    } else if (s[i] == U' ' && i + 1 < n && ascii_class(s[i + 1]) != AsciiClass::kSpace) {
      end = run_end(i + 2, ascii_class(s[i + 1]));
    } else {
      end = run_end(i + 1, AsciiClass::kSpace);
      if (end < n && end - i > 1) --end;
    }
    out.emplace_back(i, end);
    i = end;
  }
  return true;
}

namespace {

// GPT-2's pattern: contractions, letters, numbers and other symbols each with one optional
// leading space, and runs of whitespace (the last one's space goes to the next word).
const char* const kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

class ByteLevel final : public PreTokenizer {
 public:
  explicit ByteLevel(const JsonFields& f)
      : add_prefix_space_(f.boolean_or("add_prefix_space", true)),
        use_regex_(f.boolean_or("use_regex", true)),
        regex_(kGpt2Pattern, "GPT-2's pattern") {}

  void split(std::vector<AlignedText>& pieces) const override {
    std::vector<AlignedText> out;
    out.reserve(pieces.size() * 8);
    for (const AlignedText& piece : pieces) {
      thread_local AlignedText text;  // reused, so that a dataset allocates only while they grow
      thread_local Ranges matches;
      text.chars.clear();
      text.spans.clear();
      if (add_prefix_space_ && !piece.empty() && piece.chars.front() != U' ')
        text.push(U' ', piece.spans.front());
      text.chars += piece.chars;
      text.spans.insert(text.spans.end(), piece.spans.begin(), piece.spans.end());
      if (!use_regex_) {
        if (!text.empty()) push_bytes(text, 0, text.size(), out);
        continue;
      }
      matches.clear();
      if (!gpt2_matches_ascii(text.chars, matches)) matches = regex_.find_all(text.chars);
      // Isolated: every match and every stretch between two is a piece.
      std::size_t at = 0;
      for (const auto& [begin, end] : matches) {
        if (begin > at) push_bytes(text, at, begin, out);
        push_bytes(text, begin, end, out);
        at = end;
      }
      if (at < text.size()) push_bytes(text, at, text.size(), out);
    }
    pieces = std::move(out);
  }

  // text[begin, end) as GPT-2's byte characters, each byte with its character's span.
  static void push_bytes(const AlignedText& text, std::size_t begin, std::size_t end,
                         std::vector<AlignedText>& out) {
    AlignedText& piece = out.emplace_back();
    piece.chars.reserve(end - begin);
    piece.spans.reserve(end - begin);
    std::string bytes;
    for (std::size_t i = begin; i < end; ++i) {
      const char32_t c = text.chars[i];
      if (c < 0x80) {
        piece.push(byte_to_char(static_cast<unsigned char>(c)), text.spans[i]);
        continue;
      }
      bytes.clear();
      append_utf8(bytes, c);
      for (const char b : bytes) piece.push(byte_to_char(static_cast<unsigned char>(b)), text.spans[i]);
    }
  }

 private:
  bool add_prefix_space_, use_regex_;
  Regex regex_;
};

}  // namespace

char32_t byte_to_char(unsigned char byte) { return byte_alphabet()[byte]; }

int char_to_byte(char32_t c) {
  static const std::array<int, 512> inverse = [] {
    std::array<int, 512> t{};
    t.fill(-1);
    for (int b = 0; b < 256; ++b) t[byte_alphabet()[static_cast<std::size_t>(b)]] = b;
    return t;
  }();
  return c < 512 ? inverse[c] : -1;
}

std::unique_ptr<PreTokenizer> make_byte_level(const JsonFields& f) { return std::make_unique<ByteLevel>(f); }

}  // namespace shmtrain::text::pipeline
