#include "shmtrain/task/squad/squad_metric.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <utf8proc.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/text/unicode_rules.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::task {
namespace {

std::u32string decode(std::string_view text) {
  std::u32string out;
  for (std::size_t pos = 0; pos < text.size();) {
    char32_t cp;
    const std::size_t length = text::decode_utf8(text, pos, cp);
    if (length == 0) {
      cp = 0xFFFD;  // answers come from valid UTF-8 files; keep going rather than fail a score
      pos += 1;
    } else {
      pos += length;
    }
    out.push_back(cp);
  }
  return out;
}

utf8proc_category_t category(char32_t cp) { return utf8proc_category(static_cast<utf8proc_int32_t>(cp)); }

bool is_cased(char32_t cp) {
  const utf8proc_category_t c = category(cp);
  return c == UTF8PROC_CATEGORY_LU || c == UTF8PROC_CATEGORY_LL || c == UTF8PROC_CATEGORY_LT;
}

// Unicode's Case_Ignorable, approximately: marks, format characters, modifiers, apostrophes.
bool is_case_ignorable(char32_t cp) {
  if (cp == U'\'' || cp == 0x2019 || cp == U'.' || cp == U':' || cp == 0xB7) return true;
  const utf8proc_category_t c = category(cp);
  return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_ME || c == UTF8PROC_CATEGORY_CF ||
         c == UTF8PROC_CATEGORY_LM || c == UTF8PROC_CATEGORY_SK;
}

// Python's str.lower(): the full mapping (text::to_lower_full) plus the Final_Sigma rule:
// Σ after a cased letter and not before one becomes ς.
std::u32string python_lower(const std::u32string& s) {
  std::u32string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == 0x03A3) {
      std::size_t before = i;
      while (before > 0 && is_case_ignorable(s[before - 1])) --before;
      std::size_t after = i + 1;
      while (after < s.size() && is_case_ignorable(s[after])) ++after;
      const bool final = before > 0 && is_cased(s[before - 1]) && !(after < s.size() && is_cased(s[after]));
      out.push_back(final ? 0x03C2 : 0x03C3);
      continue;
    }
    char32_t lowered[2];
    const int n = text::to_lower_full(s[i], lowered);
    out.append(lowered, static_cast<std::size_t>(n));
  }
  return out;
}

bool is_ascii_punctuation(char32_t cp) {  // Python's string.punctuation
  return (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
         (cp >= 123 && cp <= 126);
}

// Python re's \w for str patterns: alphanumeric (str.isalnum: letters and numbers) or '_'.
bool is_word(char32_t cp) {
  if (cp == U'_') return true;
  if (cp < 0x80)
    return (cp >= U'0' && cp <= U'9') || (cp >= U'a' && cp <= U'z') || (cp >= U'A' && cp <= U'Z');
  switch (category(cp)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
      return true;
    default:
      return false;
  }
}

// Python's str.isspace().
bool is_space(char32_t cp) { return text::is_bert_whitespace(cp) || (cp >= 0x1C && cp <= 0x1F); }

std::vector<std::string> words(std::string_view normalized) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < normalized.size()) {
    const std::size_t end = std::min(normalized.find(' ', start), normalized.size());
    if (end > start) out.emplace_back(normalized.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

std::string normalize_squad_answer(std::string_view text) {
  std::u32string s = python_lower(decode(text));
  std::erase_if(s, is_ascii_punctuation);
  // remove_articles: \b(a|an|the)\b matches exactly a maximal run of word characters.
  std::u32string without_articles;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t j = i;
    while (j < s.size() && is_word(s[j])) ++j;
    if (j == i) {
      without_articles.push_back(s[i++]);
      continue;
    }
    const std::u32string_view run(s.data() + i, j - i);
    if (run == U"a" || run == U"an" || run == U"the") {
      without_articles.push_back(U' ');
    } else {
      without_articles.append(run);
    }
    i = j;
  }
  std::string out;
  bool pending_space = false;
  for (const char32_t cp : without_articles) {
    if (is_space(cp)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    text::append_utf8(out, cp);
  }
  return out;
}

bool squad_exact_match(std::string_view prediction, std::string_view truth) {
  return normalize_squad_answer(prediction) == normalize_squad_answer(truth);
}

double squad_f1(std::string_view prediction, std::string_view truth) {
  const std::vector<std::string> predicted = words(normalize_squad_answer(prediction));
  const std::vector<std::string> gold = words(normalize_squad_answer(truth));
  std::map<std::string, int> counts;
  for (const std::string& w : gold) ++counts[w];
  int same = 0;
  for (const std::string& w : predicted) {
    auto it = counts.find(w);
    if (it != counts.end() && it->second > 0) {
      --it->second;
      ++same;
    }
  }
  if (same == 0) return 0.0;
  const double precision = static_cast<double>(same) / static_cast<double>(predicted.size());
  const double recall = static_cast<double>(same) / static_cast<double>(gold.size());
  return 2.0 * precision * recall / (precision + recall);
}

SquadScores squad_scores(std::span<const std::string> predictions,
                         std::span<const std::vector<std::string>> golds) {
  if (predictions.size() != golds.size()) {
    throw Error(
        fmt::format("squad_scores: {} predictions for {} questions", predictions.size(), golds.size()));
  }
  SquadScores scores;
  if (predictions.empty()) return scores;
  double exact = 0;
  double f1 = 0;
  for (std::size_t i = 0; i < predictions.size(); ++i) {
    double best_exact = 0;
    double best_f1 = 0;
    for (const std::string& truth : golds[i]) {
      best_exact = std::max(best_exact, squad_exact_match(predictions[i], truth) ? 1.0 : 0.0);
      best_f1 = std::max(best_f1, squad_f1(predictions[i], truth));
    }
    exact += best_exact;
    f1 += best_f1;
  }
  const auto n = static_cast<double>(predictions.size());
  scores.exact_match = 100.0 * exact / n;
  scores.f1 = 100.0 * f1 / n;
  return scores;
}

}  // namespace shmtrain::task
