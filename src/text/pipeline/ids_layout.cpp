#include "ids_layout.hpp"

namespace shmtrain::text::pipeline {
namespace {

std::vector<IdsLayout::Slot> layout_of(const PostProcessor& post_processor, bool pair,
                                       const TokenNames& names) {
  const auto one = [](std::int32_t sequence) {
    SequenceTokens s;
    s.ids = {0};
    s.tokens = {std::string()};
    s.offsets = {{0, 1}};
    s.word_ids = {0};
    s.type_ids = {sequence};  // as encode_sequence (hf_tokenizer.cpp) types a pair's second text
    s.special = {0};
    s.sequence = {sequence};
    return s;
  };
  SequenceTokens b = one(1);
  const SequenceTokens t = post_processor.process(one(0), pair ? &b : nullptr, true, names);
  std::vector<IdsLayout::Slot> slots;
  for (std::size_t i = 0; i < t.size(); ++i) slots.push_back({t.sequence[i], t.ids[i], t.type_ids[i]});
  return slots;
}

}  // namespace

IdsLayout::IdsLayout(const PostProcessor& post_processor, const TokenNames& names)
    : single_(layout_of(post_processor, false, names)), pair_(layout_of(post_processor, true, names)) {}

void IdsLayout::assemble(std::span<const std::int32_t> a, std::optional<std::span<const std::int32_t>> b,
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
