#pragma once
// WordPiece: one word (a BasicTokenizer output) -> vocabulary ids, greedy longest match
// first, as transformers' WordpieceTokenizer and tokenizers' models/wordpiece:
//   - a word of more than max_input_chars_per_word code points (100) is one [UNK];
//   - from the start of the word, take the longest prefix in the vocabulary; from then on
//     the longest piece found as "##" + piece; repeat to the end of the word;
//   - if at some point no piece matches, the whole word is one [UNK] (not the pieces found
//     so far plus [UNK]).
// "unaffable" -> un ##aff ##able with BERT's vocabulary.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "shmtrain/text/vocab.hpp"

namespace shmtrain::text {

class WordPiece {
 public:
  static constexpr std::size_t kDefaultMaxInputCharsPerWord = 100;

  // REQUIRES: vocab != nullptr, 0 <= unk_id < vocab->size().
  WordPiece(std::shared_ptr<const Vocab> vocab, std::int32_t unk_id,
            std::size_t max_input_chars_per_word = kDefaultMaxInputCharsPerWord);

  // A piece's bytes within the word: [begin, end). [UNK] covers the whole word.
  struct PieceSpan {
    std::uint32_t begin;
    std::uint32_t end;
  };

  // Appends the ids of `word` to `ids` and, when `spans` is given, each id's bytes in the word
  // to `spans`. `chars` is the word's length in code points.
  // REQUIRES: word is non-empty valid UTF-8 without whitespace.
  void tokenize(std::string_view word, std::size_t chars, std::vector<std::int32_t>& ids,
                std::vector<PieceSpan>* spans = nullptr) const;

  std::int32_t unk_id() const { return unk_id_; }

 private:
  std::shared_ptr<const Vocab> vocab_;
  std::int32_t unk_id_;
  std::size_t max_input_chars_per_word_;
};

}  // namespace shmtrain::text
