#include "shmtrain/text/unicode_rules.hpp"

#include <stdexcept>

#include <utf8proc.h>

namespace shmtrain::text {
namespace {

utf8proc_category_t category(char32_t cp) { return utf8proc_category(static_cast<utf8proc_int32_t>(cp)); }

}  // namespace

bool is_bert_whitespace(char32_t cp) {
  switch (cp) {
    case U' ': case U'\t': case U'\n': case U'\r': case U'\v': case U'\f': case 0x85:
      return true;
    default:
      break;
  }
  if (cp < 0x80) return false;
  const utf8proc_category_t c = category(cp);
  return c == UTF8PROC_CATEGORY_ZS || c == UTF8PROC_CATEGORY_ZL || c == UTF8PROC_CATEGORY_ZP;
}

bool is_bert_control(char32_t cp) {
  if (cp == U'\t' || cp == U'\n' || cp == U'\r') return false;
  if (cp < 0x20 || cp == 0x7F) return true;
  if (cp < 0x80) return false;
  switch (category(cp)) {
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CS:
    case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_CN:
      return true;
    default:
      return false;
  }
}

bool is_bert_punctuation(char32_t cp) {
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) {
    return true;
  }
  if (cp < 0x80) return false;
  switch (category(cp)) {
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO:
      return true;
    default:
      return false;
  }
}

bool is_cjk_ideograph(char32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

bool is_nonspacing_mark(char32_t cp) { return cp >= 0x80 && category(cp) == UTF8PROC_CATEGORY_MN; }

int combining_class(char32_t cp) {
  if (cp < 0x80) return 0;
  return utf8proc_get_property(static_cast<utf8proc_int32_t>(cp))->combining_class;
}

int to_lower_full(char32_t cp, char32_t out[2]) {
  if (cp < 0x80) {
    out[0] = (cp >= U'A' && cp <= U'Z') ? cp + 32 : cp;
    return 1;
  }
  // SpecialCasing.txt's one unconditional multi-character lower-case mapping.
  if (cp == 0x130) {
    out[0] = U'i';
    out[1] = 0x307;
    return 2;
  }
  out[0] = static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp)));
  return 1;
}

int decompose_canonical(char32_t cp, char32_t out[4]) {
  if (cp < 0xC0) {  // nothing below U+00C0 has a canonical decomposition
    out[0] = cp;
    return 1;
  }
  utf8proc_int32_t buffer[4];
  int boundclass = 0;
  const utf8proc_ssize_t n = utf8proc_decompose_char(static_cast<utf8proc_int32_t>(cp), buffer, 4,
                                                     UTF8PROC_DECOMPOSE, &boundclass);
  if (n < 1 || n > 4) {
    throw std::logic_error("utf8proc: canonical decomposition longer than 4 code points");
  }
  for (utf8proc_ssize_t i = 0; i < n; ++i) out[i] = static_cast<char32_t>(buffer[i]);
  return static_cast<int>(n);
}

}  // namespace shmtrain::text
