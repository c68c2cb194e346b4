#include "shmtrain/io/json_nesting.hpp"

#include "shmtrain/common/error.hpp"

namespace shmtrain::io {

std::size_t json_nesting_overflow(std::string_view text, std::size_t limit) {
  std::size_t depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

void check_json_nesting(std::string_view text, const std::string& source, std::size_t limit) {
  const std::size_t at = json_nesting_overflow(text, limit);
  if (at != std::string_view::npos) {
    fail_input(
        "{}: JSON nests arrays and objects deeper than {} levels (byte {}); no file shmtrain "
        "reads needs that many, so the file is refused",
        source, limit, at);
  }
}

}  // namespace shmtrain::io
