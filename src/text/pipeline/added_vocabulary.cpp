#include "added_vocabulary.hpp"

#include <algorithm>

#include "normalizers.hpp"

namespace shmtrain::text::pipeline {

AddedVocabulary::AddedVocabulary(std::vector<AddedToken> tokens, const Normalizer* normalizer)
    : tokens_(std::move(tokens)) {
  for (std::size_t i = 0; i < tokens_.size(); ++i) {
    AlignedText content = aligned_from_utf8(tokens_[i].content);
    if (content.empty()) continue;
    if (tokens_[i].normalized && normalizer != nullptr) {
      normalizer->normalize(content);
      if (content.empty()) continue;
      normalized_.push_back({content.chars, i});
    } else {
      raw_.push_back({content.chars, i});
    }
  }
  const auto longest_first = [](const Pattern& a, const Pattern& b) { return a.text.size() > b.text.size(); };
  std::stable_sort(raw_.begin(), raw_.end(), longest_first);
  std::stable_sort(normalized_.begin(), normalized_.end(), longest_first);
}

const AddedToken* AddedVocabulary::find(const std::string& content) const {
  for (const AddedToken& t : tokens_)
    if (t.content == content) return &t;
  return nullptr;
}

const AddedToken* AddedVocabulary::find(std::int32_t id) const {
  for (const AddedToken& t : tokens_)
    if (t.id == id) return &t;
  return nullptr;
}

void AddedVocabulary::split_on(const AlignedText& text, const std::vector<Pattern>& patterns,
                               std::vector<TextPart>& out) const {
  if (patterns.empty()) {
    if (!text.empty()) out.push_back({text, -1});
    return;
  }
  const std::u32string& s = text.chars;
  const auto word_before = [&](std::size_t at) { return at > 0 && is_word_char(s[at - 1]); };
  const auto word_after = [&](std::size_t at) { return at < s.size() && is_word_char(s[at]); };
  std::size_t emitted = 0;  // text before this is in `out`
  std::size_t at = 0;
  while (at < s.size()) {
    // Leftmost-longest: the first position where some pattern matches, its longest pattern.
    const Pattern* hit = nullptr;
    for (const Pattern& p : patterns) {
      if (p.text.size() <= s.size() - at && s.compare(at, p.text.size(), p.text) == 0) {
        hit = &p;
        break;
      }
    }
    if (hit == nullptr) {
      ++at;
      continue;
    }
    const AddedToken& token = tokens_[hit->token];
    std::size_t begin = at;
    std::size_t end = at + hit->text.size();
    if (token.single_word && (word_before(begin) || word_after(end))) {
      ++at;
      continue;
    }
    if (token.lstrip) {
      while (begin > emitted && is_unicode_whitespace(s[begin - 1])) --begin;
    }
    if (token.rstrip) {
      while (end < s.size() && is_unicode_whitespace(s[end])) ++end;
    }
    if (begin > emitted) out.push_back({text.slice(emitted, begin), -1});
    out.push_back({text.slice(begin, end), token.id});
    emitted = end;
    at = end;
  }
  if (emitted < s.size()) out.push_back({text.slice(emitted, s.size()), -1});
}

std::vector<TextPart> AddedVocabulary::split(const AlignedText& raw, const Normalizer* normalizer) const {
  std::vector<TextPart> first;
  split_on(raw, raw_, first);
  std::vector<TextPart> out;
  for (TextPart& part : first) {
    if (part.id >= 0) {
      out.push_back(std::move(part));
      continue;
    }
    if (normalizer != nullptr) normalizer->normalize(part.text);
    split_on(part.text, normalized_, out);
  }
  return out;
}

}  // namespace shmtrain::text::pipeline
