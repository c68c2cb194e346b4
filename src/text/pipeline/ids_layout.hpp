#pragma once
// Internal to text/pipeline: where a post-processor puts its special tokens around one text or
// a pair, learnt once from one-token stand-ins, so that an encode that wants only ids and
// token types (training's, run_glue's) assembles them without the per-token strings, offsets
// and word ids the post-processor carries. Every post-processor shmtrain reads (BertProcessing,
// RobertaProcessing, TemplateProcessing, ByteLevel, Sequence, none) places a text's tokens as
// one run in order and gives them one token type, whatever they are, which is what makes the
// layout of a one-token text the layout of any text.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "post_processors.hpp"
#include "shmtrain/text/tokenizer.hpp"

namespace shmtrain::text::pipeline {

class IdsLayout {
 public:
  IdsLayout() = default;
  IdsLayout(const PostProcessor& post_processor, const TokenNames& names);

  // a (and b) with the special tokens and token types the post-processor puts around them;
  // out.attention_mask all 1.
  void assemble(std::span<const std::int32_t> a, std::optional<std::span<const std::int32_t>> b,
                Encoding& out) const;

  // One position of the post-processor's output: a special token, or a sequence's tokens.
  struct Slot {
    std::int32_t sequence;  // -1: the special token `id`; 0 or 1: the first or second text
    std::int32_t id;
    std::int32_t type_id;
  };

 private:
  std::vector<Slot> single_;
  std::vector<Slot> pair_;
};

}  // namespace shmtrain::text::pipeline
