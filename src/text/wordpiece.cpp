#include "shmtrain/text/wordpiece.hpp"

#include <algorithm>
#include <stdexcept>

#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text {

WordPiece::WordPiece(std::shared_ptr<const Vocab> vocab, std::int32_t unk_id, std::size_t max_input_chars_per_word)
    : vocab_(std::move(vocab)), unk_id_(unk_id), max_input_chars_per_word_(max_input_chars_per_word) {
  if (!vocab_ || unk_id_ < 0 || static_cast<std::size_t>(unk_id_) >= vocab_->size()) {
    throw std::invalid_argument("WordPiece: unk_id outside the vocabulary");
  }
}

void WordPiece::tokenize(std::string_view word, std::size_t chars, std::vector<std::int32_t>& ids,
                         std::vector<PieceSpan>* spans) const {
  const auto whole_word_unknown = [&] {
    ids.push_back(unk_id_);
    if (spans != nullptr) spans->push_back({0, static_cast<std::uint32_t>(word.size())});
  };
  if (chars > max_input_chars_per_word_) {
    whole_word_unknown();
    return;
  }
  const std::size_t first_id = ids.size();
  const std::size_t first_span = spans != nullptr ? spans->size() : 0;
  std::size_t start = 0;
  while (start < word.size()) {
    // No vocabulary entry is longer than `longest`, so the search starts at that length
    // (backed off to a character boundary) instead of the end of the word.
    const std::size_t longest =
        start == 0 ? vocab_->longest_token_bytes() : vocab_->longest_continuation_bytes();
    std::size_t end = std::min(word.size(), start + longest);
    while (end < word.size() && end > start && is_utf8_continuation(word[end])) --end;

    std::int32_t id = Vocab::kNotFound;
    while (end > start) {
      const std::string_view piece = word.substr(start, end - start);
      id = start == 0 ? vocab_->find(piece) : vocab_->find_continuation(piece);
      if (id != Vocab::kNotFound) break;
      --end;
      while (end > start && is_utf8_continuation(word[end])) --end;
    }
    if (id == Vocab::kNotFound) {
      ids.resize(first_id);
      if (spans != nullptr) spans->resize(first_span);
      whole_word_unknown();
      return;
    }
    ids.push_back(id);
    if (spans != nullptr) spans->push_back({static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(end)});
    start = end;
  }
}

}  // namespace shmtrain::text
