#include "shmtrain/text/wordpiece.hpp"

#include <algorithm>
#include <stdexcept>

#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text {

WordPiece::WordPiece(std::shared_ptr<const Vocab> vocab, std::int32_t unk_id,
                     std::size_t max_input_chars_per_word)
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
    const Vocab::Match match = vocab_->longest_match(word.substr(start), start != 0);
    const std::int32_t id = match.id;
    const std::size_t end = start + match.bytes;
    if (id == Vocab::kNotFound) {
      ids.resize(first_id);
      if (spans != nullptr) spans->resize(first_span);
      whole_word_unknown();
      return;
    }
    ids.push_back(id);
    if (spans != nullptr)
      spans->push_back({static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(end)});
    start = end;
  }
}

}  // namespace shmtrain::text
