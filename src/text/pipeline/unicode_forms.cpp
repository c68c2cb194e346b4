// NFD, NFKD, NFC and NFKC with alignments: utf8proc decomposes one character at a time and
// composes one pair at a time, so each output character knows which input it came from.
#include <algorithm>
#include <unordered_map>

#include <utf8proc.h>

#include "normalizers.hpp"
#include "shmtrain/text/unicode_rules.hpp"

namespace shmtrain::text::pipeline {
namespace {

void decompose(char32_t c, bool compat, std::u32string& out) {
  utf8proc_int32_t buffer[32];
  int last_boundclass = 0;
  const auto options = static_cast<utf8proc_option_t>(UTF8PROC_DECOMPOSE | (compat ? UTF8PROC_COMPAT : 0));
  const utf8proc_ssize_t n =
      utf8proc_decompose_char(static_cast<utf8proc_int32_t>(c), buffer, 32, options, &last_boundclass);
  if (n <= 0 || n > 32) {
    out.push_back(c);
    return;
  }
  for (utf8proc_ssize_t i = 0; i < n; ++i) out.push_back(static_cast<char32_t>(buffer[i]));
}

// The primary composite of (a, b), or 0.
char32_t compose_pair(char32_t a, char32_t b) {
  thread_local std::unordered_map<std::uint64_t, char32_t> cache;
  const std::uint64_t key = (std::uint64_t{a} << 32) | b;
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  utf8proc_int32_t buffer[2] = {static_cast<utf8proc_int32_t>(a), static_cast<utf8proc_int32_t>(b)};
  const utf8proc_ssize_t n =
      utf8proc_normalize_utf32(buffer, 2, static_cast<utf8proc_option_t>(UTF8PROC_COMPOSE | UTF8PROC_STABLE));
  const char32_t result = n == 1 ? static_cast<char32_t>(buffer[0]) : 0;
  if (cache.size() < 65536) cache.emplace(key, result);
  return result;
}

}  // namespace

void unicode_normalize(AlignedText& text, UnicodeForm form) {
  const bool compat = form == UnicodeForm::kNfkd || form == UnicodeForm::kNfkc;
  AlignedText out;
  out.chars.reserve(text.size());
  out.spans.reserve(text.size());
  std::u32string parts;
  for (std::size_t i = 0; i < text.size(); ++i) {
    parts.clear();
    decompose(text.chars[i], compat, parts);
    for (const char32_t p : parts) out.push(p, text.spans[i]);
  }
  // Canonical ordering: runs of non-starters sorted stably by combining class.
  for (std::size_t i = 0; i < out.size();) {
    if (combining_class(out.chars[i]) == 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < out.size() && combining_class(out.chars[j]) != 0) ++j;
    if (j - i > 1) {
      // The characters move; the spans stay where they were (tokenizers aligns by position).
      std::stable_sort(out.chars.begin() + static_cast<std::ptrdiff_t>(i), out.chars.begin() + static_cast<std::ptrdiff_t>(j),
                       [](char32_t a, char32_t b) { return combining_class(a) < combining_class(b); });
    }
    i = j;
  }
  if (form == UnicodeForm::kNfc || form == UnicodeForm::kNfkc) {
    // Canonical composition: each character joins the last starter unless blocked. Spans are
    // handed out by position afterwards, as tokenizers aligns them: a composed character takes
    // the next position's span and uses up one more position per character it absorbed.
    AlignedText composed;
    std::vector<std::size_t> absorbed;
    std::size_t starter = SIZE_MAX;
    int last_class = -1;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const char32_t c = out.chars[i];
      const int cc = combining_class(c);
      if (starter != SIZE_MAX) {
        const bool blocked = last_class != -1 && (last_class == 0 || last_class >= cc);
        if (!blocked) {
          const char32_t pair = compose_pair(composed.chars[starter], c);
          if (pair != 0) {
            composed.chars[starter] = pair;
            ++absorbed[starter];
            continue;
          }
        }
      }
      composed.push(c, out.spans[i]);
      absorbed.push_back(0);
      if (cc == 0) {
        starter = composed.size() - 1;
        last_class = -1;
      } else {
        last_class = cc;
      }
    }
    std::size_t position = 0;
    for (std::size_t k = 0; k < composed.size(); ++k) {
      composed.spans[k] = out.spans[position];
      position += 1 + absorbed[k];
    }
    out = std::move(composed);
  }
  text = std::move(out);
}

}  // namespace shmtrain::text::pipeline
