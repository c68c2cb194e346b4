#pragma once
// Internal to text/pipeline: the regular expressions tokenizer.json carries (GPT-2's
// pre-tokenization pattern, Split's and Replace's patterns), on PCRE2's 32-bit library so that
// matches are found directly over code points with Unicode properties (\p{L}, \p{N}, \s).
// tokenizers compiles them with Oniguruma; for the patterns models ship the two agree.
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shmtrain::text::pipeline {

class Regex {
 public:
  // Throws InputError "<what>: bad regular expression '<pattern>': <PCRE2's reason> at <offset>".
  Regex(const std::string& pattern, const std::string& what);
  // A pattern that matches `literal` exactly (Split's and Replace's {"String": ...}).
  static Regex literal(std::u32string literal);
  ~Regex();
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;

  // The non-overlapping matches in `text`, leftmost first, as [begin, end) character ranges.
  // An empty match is skipped (tokenizers drops them as well).
  std::vector<std::pair<std::size_t, std::size_t>> find_all(const std::u32string& text) const;

 private:
  Regex() = default;
  struct Compiled;
  std::unique_ptr<Compiled> compiled_;
  std::u32string literal_;
};

// Reads {"Regex": "..."} or {"String": "..."} (tokenizers' SplitPattern / ReplacePattern).
class JsonFields;
Regex read_pattern(const JsonFields& fields, const std::string& key);

}  // namespace shmtrain::text::pipeline
