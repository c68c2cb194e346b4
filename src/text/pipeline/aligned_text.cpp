#include "aligned_text.hpp"

#include <utf8proc.h>

#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text::pipeline {

AlignedText AlignedText::slice(std::size_t begin, std::size_t end) const {
  AlignedText out;
  out.chars.assign(chars.begin() + static_cast<std::ptrdiff_t>(begin),
                   chars.begin() + static_cast<std::ptrdiff_t>(end));
  out.spans.assign(spans.begin() + static_cast<std::ptrdiff_t>(begin),
                   spans.begin() + static_cast<std::ptrdiff_t>(end));
  return out;
}

CharSpan AlignedText::original(std::size_t begin, std::size_t end) const {
  return {spans[begin].begin, spans[end - 1].end};
}

std::string AlignedText::utf8() const { return utf8(0, chars.size()); }

std::string AlignedText::utf8(std::size_t begin, std::size_t end) const {
  std::string out;
  out.reserve(end - begin);
  for (std::size_t i = begin; i < end; ++i) append_utf8(out, chars[i]);
  return out;
}

AlignedText aligned_from_utf8(std::string_view text, std::uint32_t first) {
  AlignedText out;
  out.chars.reserve(text.size());
  out.spans.reserve(text.size());
  std::uint32_t index = first;
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t c = 0;
    const std::size_t length = decode_utf8(text, pos, c);
    pos += length == 0 ? 1 : length;  // callers validated the text; never loop forever
    out.push(c, {index, index + 1});
    ++index;
  }
  return out;
}

namespace {

utf8proc_category_t category_of(char32_t c) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(c));
}

}  // namespace

bool is_unicode_whitespace(char32_t c) {
  switch (c) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0x85: case 0xA0:
    case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

bool is_word_char(char32_t c) {
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  if (c == 0x200C || c == 0x200D) return true;  // Join_Control
  switch (category_of(c)) {
    case UTF8PROC_CATEGORY_LU: case UTF8PROC_CATEGORY_LL: case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM: case UTF8PROC_CATEGORY_LO: case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_MN: case UTF8PROC_CATEGORY_MC: case UTF8PROC_CATEGORY_ME:
    case UTF8PROC_CATEGORY_ND: case UTF8PROC_CATEGORY_PC:
      return true;
    default:
      return false;
  }
}

bool is_unicode_punctuation(char32_t c) {
  switch (category_of(c)) {
    case UTF8PROC_CATEGORY_PC: case UTF8PROC_CATEGORY_PD: case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE: case UTF8PROC_CATEGORY_PI: case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
      return true;
    default:
      return false;
  }
}

bool is_numeric(char32_t c) {
  const auto cat = category_of(c);
  return cat == UTF8PROC_CATEGORY_ND || cat == UTF8PROC_CATEGORY_NL || cat == UTF8PROC_CATEGORY_NO;
}

}  // namespace shmtrain::text::pipeline
