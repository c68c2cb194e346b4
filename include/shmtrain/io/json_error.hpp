#pragma once
// nlohmann's exception text without its "[json.exception.parse_error.101] "
// tag, which means nothing to a user reading why their file was refused.
#include <string>
#include <string_view>

namespace shmtrain::io {

inline std::string json_error_text(std::string_view what) {
  if (what.starts_with("[json.exception.")) {
    const std::size_t end = what.find("] ");
    if (end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  return std::string(what);
}

}  // namespace shmtrain::io
