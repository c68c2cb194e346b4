#include "shmtrain/text/utf8.hpp"

#include "shmtrain/common/error.hpp"

namespace shmtrain::text {

std::size_t find_invalid_utf8(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    // Runs of ASCII are the common case; skip them without decoding.
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    char32_t cp;
    const std::size_t length = decode_utf8(text, pos, cp);
    if (length == 0) return pos;
    pos += length;
  }
  return std::string_view::npos;
}

void check_utf8(std::string_view text, std::string_view what) {
  const std::size_t bad = find_invalid_utf8(text);
  if (bad == std::string_view::npos) return;
  fail_input("{}: invalid UTF-8 at byte {} (0x{:02X}): re-encode the input as UTF-8 "
             "(e.g. `iconv -f latin1 -t utf-8`)",
             what, bad, static_cast<unsigned char>(text[bad]));
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace shmtrain::text
