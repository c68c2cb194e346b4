#include "shmtrain/text/added_tokens.hpp"

#include <algorithm>

namespace shmtrain::text {

AddedTokenMatcher::AddedTokenMatcher(std::vector<Token> tokens) {
  for (Token& token : tokens) {
    if (token.text.empty()) continue;
    const bool seen = std::any_of(tokens_.begin(), tokens_.end(), [&](const Token& t) { return t.text == token.text; });
    if (seen) continue;
    starts_with_[static_cast<unsigned char>(token.text.front())] = true;
    tokens_.push_back(std::move(token));
  }
  std::stable_sort(tokens_.begin(), tokens_.end(),
                   [](const Token& a, const Token& b) { return a.text.size() > b.text.size(); });
}

std::optional<AddedTokenMatcher::Match> AddedTokenMatcher::find(std::string_view text, std::size_t from) const {
  if (tokens_.empty()) return std::nullopt;
  for (std::size_t pos = from; pos < text.size(); ++pos) {
    if (!starts_with_[static_cast<unsigned char>(text[pos])]) continue;
    const std::string_view rest = text.substr(pos);
    for (const Token& token : tokens_) {
      if (rest.starts_with(token.text)) return Match{pos, token.text.size(), token.id};
    }
  }
  return std::nullopt;
}

}  // namespace shmtrain::text
