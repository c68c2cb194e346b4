#include "bert_ids_path.hpp"

#include <algorithm>

#include "shmtrain/text/bert_words.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text::pipeline {

std::unique_ptr<BertIdsPath> BertIdsPath::make(const Normalizer* normalizer, const PreTokenizer* pre_tokenizer,
                                               const Model& model, const AddedVocabulary& added) {
  if (normalizer == nullptr || normalizer->bert_options() == nullptr || pre_tokenizer == nullptr ||
      !pre_tokenizer->is_bert() || model.wordpiece() == nullptr) {
    return nullptr;
  }
  std::vector<AddedTokenMatcher::Token> tokens;
  for (const AddedToken& t : added.tokens()) {
    if (t.normalized || t.lstrip || t.rstrip || t.single_word) return nullptr;
    tokens.push_back({t.content, t.id});
  }
  return std::unique_ptr<BertIdsPath>(
      new BertIdsPath(*normalizer->bert_options(), *model.wordpiece(), std::move(tokens)));
}

void BertIdsPath::tokenize(std::string_view text, std::vector<std::int32_t>& ids, std::string_view what) const {
  // Validated here, on the whole text, so the error gives the offset the user can find.
  check_utf8(text, what);
  thread_local WordList words;  // reused, so that a dataset allocates only while it grows
  const auto tokenize_segment = [&](std::string_view segment) {
    words.clear();
    split_bert_words(options_, segment, words);
    for (const WordList::Word& word : words.words) model_.tokenize_word(words.text(word), word.chars, ids);
  };
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto match = added_.find(text, pos);
    if (!match) break;
    tokenize_segment(text.substr(pos, match->begin - pos));
    ids.push_back(match->id);
    pos = match->begin + match->size;
  }
  tokenize_segment(text.substr(std::min(pos, text.size())));
}

}  // namespace shmtrain::text::pipeline
