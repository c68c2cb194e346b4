#pragma once
// UTF-8 decoding and validation for the tokenizer. Valid means what Python's strict "utf-8"
// codec accepts (Hugging Face decodes every text and vocab.txt with it): no overlong forms,
// no surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no truncated sequences.
#include <cstddef>
#include <string>
#include <string_view>

namespace shmtrain::text {

// Decodes the code point starting at byte `pos` into `cp` and returns its length in bytes
// (1-4), or 0 when the bytes at `pos` are not valid UTF-8. REQUIRES: pos < text.size().
inline std::size_t decode_utf8(std::string_view text, std::size_t pos, char32_t& cp) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char b0 = byte(pos);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  std::size_t length;
  char32_t min_value;
  if ((b0 & 0xE0) == 0xC0) {
    length = 2;
    cp = b0 & 0x1F;
    min_value = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    length = 3;
    cp = b0 & 0x0F;
    min_value = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    length = 4;
    cp = b0 & 0x07;
    min_value = 0x10000;
  } else {
    return 0;  // a continuation byte or 0xF8..0xFF cannot start a character
  }
  if (text.size() - pos < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    const unsigned char b = byte(pos + i);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min_value || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return length;
}

// True for the bytes 10xxxxxx that continue a multi-byte character.
inline bool is_utf8_continuation(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) == 0x80; }

// Code points in valid UTF-8 `text` (Python's len() of the decoded str).
inline std::size_t count_code_points(std::string_view text) {
  std::size_t count = 0;
  for (const char byte : text) count += is_utf8_continuation(byte) ? 0 : 1;
  return count;
}

// Byte offset of the first invalid sequence in `text`, or std::string_view::npos.
std::size_t find_invalid_utf8(std::string_view text);

// Throws InputError "<what>: invalid UTF-8 at byte N (0xXX): ..." naming the first bad byte
// and what to do, when `text` is not valid UTF-8.
void check_utf8(std::string_view text, std::string_view what);

// Appends the UTF-8 encoding of `cp` (REQUIRES: a Unicode scalar value).
void append_utf8(std::string& out, char32_t cp);

}  // namespace shmtrain::text
