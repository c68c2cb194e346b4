#include "shmtrain/text/vocab.hpp"

#include <fstream>
#include <iterator>
#include <limits>

#include "shmtrain/common/error.hpp"
#include "shmtrain/text/unicode_rules.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text {

Vocab::Vocab(const std::vector<std::string>& tokens, std::string continuing_subword_prefix)
    : prefix_(std::move(continuing_subword_prefix)) {
  if (tokens.size() >= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
    fail_input("vocabulary of {} tokens is larger than int32 ids allow", tokens.size());
  }
  std::size_t total = 0;
  for (const std::string& token : tokens) total += token.size();
  if (total >= std::numeric_limits<std::uint32_t>::max()) fail_input("vocabulary text exceeds 4 GiB");
  arena_.reserve(total);
  offsets_.reserve(tokens.size() + 1);
  offsets_.push_back(0);
  for (const std::string& token : tokens) {
    arena_.insert(arena_.end(), token.begin(), token.end());
    offsets_.push_back(static_cast<std::uint32_t>(arena_.size()));
  }

  ids_.reserve(tokens.size());
  node_ids_.assign(2, kNotFound);  // the roots of the two tries
  for (std::size_t id = 0; id < tokens.size(); ++id) {
    const std::string_view token = this->token(static_cast<std::int32_t>(id));
    if (token.empty()) continue;
    ids_[token] = static_cast<std::int32_t>(id);  // later lines win, as in HF's dict
    insert_trie(0, token, static_cast<std::int32_t>(id));
    if (!prefix_.empty() && token.size() > prefix_.size() && token.starts_with(prefix_)) {
      const std::string_view piece = token.substr(prefix_.size());
      continuation_ids_[piece] = static_cast<std::int32_t>(id);
      insert_trie(1, piece, static_cast<std::int32_t>(id));
    }
  }
}

void Vocab::insert_trie(std::uint32_t root, std::string_view text, std::int32_t id) {
  std::uint32_t node = root;
  for (const char c : text) {
    const std::uint64_t edge = (std::uint64_t{node} << 8) | static_cast<unsigned char>(c);
    const auto [it, added] = edges_.try_emplace(edge, static_cast<std::uint32_t>(node_ids_.size()));
    if (added) node_ids_.push_back(kNotFound);
    node = it->second;
  }
  node_ids_[node] = id;  // later ids win, as in ids_
}

Vocab::Match Vocab::longest_match(std::string_view text, bool continuation) const {
  Match best{kNotFound, 0};
  // With no prefix ("" in a tokenizer.json), a piece inside a word is looked up as it is.
  std::uint32_t node = continuation && !prefix_.empty() ? 1 : 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto it = edges_.find((std::uint64_t{node} << 8) | static_cast<unsigned char>(text[i]));
    if (it == edges_.end()) break;
    node = it->second;
    const bool boundary = i + 1 == text.size() || !is_utf8_continuation(text[i + 1]);
    if (node_ids_[node] != kNotFound && boundary) best = {node_ids_[node], i + 1};
  }
  return best;
}

std::string_view Vocab::token(std::int32_t id) const {
  const auto i = static_cast<std::size_t>(id);
  return {arena_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]};
}

std::int32_t Vocab::find(std::string_view token) const {
  const auto it = ids_.find(token);
  return it == ids_.end() ? kNotFound : it->second;
}

std::int32_t Vocab::find_continuation(std::string_view piece) const {
  if (prefix_.empty()) return find(piece);
  const auto it = continuation_ids_.find(piece);
  return it == continuation_ids_.end() ? kNotFound : it->second;
}

std::vector<std::string> read_vocab_txt(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    fail_input(
        "vocabulary file {} not found: pass --vocab a vocab.txt, a tokenizer.json or a Hugging Face "
        "model folder holding one",
        path.string());
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_input("cannot open vocabulary file {}: check its permissions", path.string());
  const std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail_input("cannot read vocabulary file {}", path.string());
  if (contents.empty()) {
    fail_input("vocabulary file {} is empty: a BERT vocab.txt holds one token per line", path.string());
  }

  std::vector<std::string> tokens;
  std::size_t begin = 0;
  while (begin < contents.size()) {
    std::size_t end = contents.find_first_of("\r\n", begin);
    if (end == std::string::npos) end = contents.size();
    const std::string_view line(contents.data() + begin, end - begin);
    const std::size_t bad = find_invalid_utf8(line);
    if (bad != std::string_view::npos) {
      fail_input("{}:{}: invalid UTF-8 at byte {} of the line (0x{:02X}): vocab.txt must be UTF-8",
                 path.string(), tokens.size() + 1, bad, static_cast<unsigned char>(line[bad]));
    }
    if (line.size() > Vocab::kMaxTokenBytes) {
      fail_input("{}:{}: a token of {} bytes; vocabulary tokens are at most {} bytes", path.string(),
                 tokens.size() + 1, line.size(), Vocab::kMaxTokenBytes);
    }
    if (line.find('\0') != std::string_view::npos) {
      fail_input("{}:{}: the token holds a NUL byte at byte {}", path.string(), tokens.size() + 1,
                 line.find('\0'));
    }
    tokens.emplace_back(line);
    begin = end;
    if (begin < contents.size()) {
      begin +=
          (contents[begin] == '\r' && begin + 1 < contents.size() && contents[begin + 1] == '\n') ? 2 : 1;
    }
  }
  return tokens;
}

std::optional<std::string> find_cased_token(const Vocab& vocab) {
  for (std::size_t id = 0; id < vocab.size(); ++id) {
    const std::string_view token = vocab.token(static_cast<std::int32_t>(id));
    if (token.size() >= 2 && token.front() == '[' && token.back() == ']') continue;
    std::size_t pos = 0;
    while (pos < token.size()) {
      char32_t cp;
      const std::size_t length = decode_utf8(token, pos, cp);
      if (length == 0) break;  // tokens are validated on load; be safe with hand-built ones
      char32_t lowered[2];
      if (to_lower_full(cp, lowered) != 1 || lowered[0] != cp) return std::string(token);
      pos += length;
    }
  }
  return std::nullopt;
}

}  // namespace shmtrain::text
