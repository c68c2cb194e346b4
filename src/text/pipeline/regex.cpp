#include "regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 32
#include <pcre2.h>

#include <fmt/format.h>

#include "json_fields.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text::pipeline {

struct Regex::Compiled {
  pcre2_code* code = nullptr;
  ~Compiled() { pcre2_code_free(code); }
};

namespace {

std::u32string to_u32(std::string_view text) {
  std::u32string out;
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t c = 0;
    const std::size_t length = decode_utf8(text, pos, c);
    if (length == 0) return {};
    out.push_back(c);
    pos += length;
  }
  return out;
}

}  // namespace

Regex::Regex(const std::string& pattern, const std::string& what) : compiled_(std::make_unique<Compiled>()) {
  check_utf8(pattern, what);
  const std::u32string wide = to_u32(pattern);
  int error = 0;
  PCRE2_SIZE error_offset = 0;
  compiled_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(wide.data()), wide.size(), PCRE2_UTF | PCRE2_UCP,
                                  &error, &error_offset, nullptr);
  if (compiled_->code == nullptr) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, 256);
    std::string reason;
    for (PCRE2_UCHAR* c = message; *c != 0; ++c) append_utf8(reason, static_cast<char32_t>(*c));
    fail_input("{}: bad regular expression '{}': {} at character {}", what, pattern, reason, error_offset);
  }
  pcre2_jit_compile(compiled_->code, PCRE2_JIT_COMPLETE);  // best effort: falls back to the interpreter
}

Regex Regex::literal(std::u32string literal) {
  Regex r;
  r.literal_ = std::move(literal);
  return r;
}

Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

std::vector<std::pair<std::size_t, std::size_t>> Regex::find_all(const std::u32string& text) const {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  if (!compiled_) {
    if (literal_.empty()) return out;
    for (std::size_t at = text.find(literal_); at != std::u32string::npos; at = text.find(literal_, at + literal_.size())) {
      out.emplace_back(at, at + literal_.size());
    }
    return out;
  }
  // One pair of offsets is all find_all reads (a pattern with groups then returns 0: matched,
  // the groups not stored); made once per thread instead of at every call.
  thread_local const std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match_data(
      pcre2_match_data_create(1, nullptr), &pcre2_match_data_free);
  pcre2_match_data* data = match_data.get();
  if (data == nullptr) fail_input("PCRE2 could not allocate its match data: out of memory");
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::size_t start = 0;
  while (start <= text.size()) {
    // The characters came from validated UTF-8, and PCRE2 would otherwise check the whole
    // subject again at every match: quadratic in the text.
    const int rc = pcre2_match(compiled_->code, subject, text.size(), start, PCRE2_NO_UTF_CHECK, data, nullptr);
    if (rc < 0) break;  // PCRE2_ERROR_NOMATCH, or a resource limit: no further matches (0: matched)
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data);
    const std::size_t begin = ovector[0];
    const std::size_t end = ovector[1];
    if (end > begin) {
      out.emplace_back(begin, end);
      start = end;
    } else {
      start = begin + 1;
    }
  }
  return out;
}

Regex read_pattern(const JsonFields& fields, const std::string& key) {
  const nlohmann::json& value = fields.object(key);
  const JsonFields pattern(value, fields.key_path(key), fields.file());
  if (pattern.has("Regex")) return Regex(pattern.string("Regex"), fmt::format("{}: {}", fields.file(), pattern.key_path("Regex")));
  if (pattern.has("String")) {
    const std::string literal = pattern.string("String");
    check_utf8(literal, fmt::format("{}: {}", fields.file(), pattern.key_path("String")));
    return Regex::literal(to_u32(literal));
  }
  fields.fail(key, "must be {\"Regex\": ...} or {\"String\": ...}");
}

}  // namespace shmtrain::text::pipeline
