// The ids of a text through the steps (added tokens, normalizer, pre-tokenizer, model) without
// what encode_text also builds for every token (its string, offsets, word id, type, flags):
// what training and run_glue use, so that they pay only for the steps themselves.
#include <vector>

#include "pipeline.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::text::pipeline {

void tokenize_ids(const HfTokenizer::Impl& impl, std::string_view text, std::vector<std::int32_t>& ids,
                  std::string_view what) {
  if (impl.ids_path) return impl.ids_path->tokenize(text, ids, what);
  check_utf8(text, what);
  std::vector<TextPart> parts = impl.added.split(aligned_from_utf8(text), impl.normalizer.get());
  thread_local std::vector<AlignedText> pieces;  // reused, so that a dataset allocates only while they grow
  thread_local std::vector<PieceToken> tokens;
  for (TextPart& part : parts) {
    if (part.id >= 0) {
      ids.push_back(part.id);
      continue;
    }
    pieces.clear();
    pieces.push_back(std::move(part.text));
    if (impl.pre_tokenizer) impl.pre_tokenizer->split(pieces);
    for (const AlignedText& piece : pieces) {
      if (piece.empty()) continue;
      tokens.clear();
      impl.model->tokenize(piece, tokens);
      for (const PieceToken& t : tokens) ids.push_back(t.id);
    }
  }
}

}  // namespace shmtrain::text::pipeline
