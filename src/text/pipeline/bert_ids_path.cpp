#include "bert_ids_path.hpp"

#include <algorithm>

#include "shmtrain/text/bert_words.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text::pipeline {
namespace {

// Where the post-processor puts its special tokens: learnt once from one-token stand-ins.
std::vector<BertIdsPath::Slot> layout_of(const PostProcessor& post_processor, bool pair, const TokenNames& names) {
  const auto one = [](std::int32_t sequence) {
    SequenceTokens s;
    s.ids = {0};
    s.tokens = {std::string()};
    s.offsets = {{0, 1}};
    s.word_ids = {0};
    s.type_ids = {sequence};
    s.special = {0};
    s.sequence = {sequence};
    return s;
  };
  SequenceTokens b = one(1);
  const SequenceTokens t = post_processor.process(one(0), pair ? &b : nullptr, true, names);
  std::vector<BertIdsPath::Slot> slots;
  for (std::size_t i = 0; i < t.size(); ++i) slots.push_back({t.sequence[i], t.ids[i], t.type_ids[i]});
  return slots;
}

}  // namespace

std::unique_ptr<BertIdsPath> BertIdsPath::make(const Normalizer* normalizer, const PreTokenizer* pre_tokenizer,
                                               const Model& model, const AddedVocabulary& added,
                                               const PostProcessor& post_processor, const TokenNames& names) {
  if (normalizer == nullptr || normalizer->bert_options() == nullptr || pre_tokenizer == nullptr ||
      !pre_tokenizer->is_bert() || model.wordpiece() == nullptr) {
    return nullptr;
  }
  std::vector<AddedTokenMatcher::Token> tokens;
  for (const AddedToken& t : added.tokens()) {
    if (t.normalized || t.lstrip || t.rstrip || t.single_word) return nullptr;
    tokens.push_back({t.content, t.id});
  }
  std::unique_ptr<BertIdsPath> path(new BertIdsPath(*normalizer->bert_options(), *model.wordpiece(), std::move(tokens)));
  path->single_ = layout_of(post_processor, false, names);
  path->pair_ = layout_of(post_processor, true, names);
  return path;
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

void BertIdsPath::assemble(std::span<const std::int32_t> a, std::optional<std::span<const std::int32_t>> b,
                           Encoding& out) const {
  out.input_ids.clear();
  out.token_type_ids.clear();
  for (const Slot& slot : b ? pair_ : single_) {
    if (slot.sequence < 0) {
      out.input_ids.push_back(slot.id);
      out.token_type_ids.push_back(slot.type_id);
      continue;
    }
    const std::span<const std::int32_t> ids = slot.sequence == 0 ? a : *b;
    out.input_ids.insert(out.input_ids.end(), ids.begin(), ids.end());
    out.token_type_ids.resize(out.input_ids.size(), slot.type_id);
  }
  out.attention_mask.assign(out.input_ids.size(), 1);
}

}  // namespace shmtrain::text::pipeline
