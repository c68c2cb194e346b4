#include <fmt/format.h>

#include "models.hpp"
#include "shmtrain/text/vocab.hpp"

namespace shmtrain::text::pipeline {

void TokenTable::add(const std::string& token, std::int64_t id, const JsonFields& f, const std::string& key) {
  if (id < 0 || static_cast<std::uint64_t>(id) >= Vocab::kMaxTokens) {
    f.fail(key, fmt::format("token '{}' has id {}, outside 0..{}", token, id, Vocab::kMaxTokens - 1));
  }
  const auto index = static_cast<std::size_t>(id);
  if (index >= tokens_.size()) tokens_.resize(index + 1);
  if (!tokens_[index].empty()) f.fail(key, fmt::format("id {} is given to both '{}' and '{}'", id, tokens_[index], token));
  if (!ids_.emplace(token, static_cast<std::int32_t>(id)).second) {
    f.fail(key, fmt::format("token '{}' is listed twice", token));
  }
  tokens_[index] = token;
}

TokenTable TokenTable::from_lines(std::vector<std::string> tokens) {
  TokenTable table;
  table.tokens_ = std::move(tokens);
  for (std::size_t id = 0; id < table.tokens_.size(); ++id) {
    if (!table.tokens_[id].empty()) table.ids_[table.tokens_[id]] = static_cast<std::int32_t>(id);
  }
  return table;
}

std::int32_t TokenTable::find(std::string_view token) const {
  const auto it = ids_.find(token);
  return it == ids_.end() ? -1 : it->second;
}

const std::string& TokenTable::token(std::int32_t id) const {
  static const std::string empty;
  return id >= 0 && static_cast<std::size_t>(id) < tokens_.size() ? tokens_[static_cast<std::size_t>(id)] : empty;
}

}  // namespace shmtrain::text::pipeline
