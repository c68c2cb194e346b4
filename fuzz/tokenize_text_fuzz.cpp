// Any text through BertTokenizerFast's pipeline (clean-up, NFD, accents, CJK, punctuation,
// WordPiece) with the test vocabulary: crashes, runs whose time grows faster than the text,
// and texts where the ids-only path (tokenize) and the steps with offsets disagree.
#include <vector>

#include "fuzz_support.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto tokenizer = shmtrain::text::HfTokenizer::load_bert(SHMTRAIN_FUZZ_VOCAB);
  std::vector<std::int32_t> ids;
  std::vector<shmtrain::text::CharSpan> offsets;
  std::vector<std::int32_t> fast_ids;
  const auto text = shmtrain::fuzz::as_text(data, size);
  try {
    tokenizer.tokenize_with_offsets(text, ids, offsets, "text");
    tokenizer.tokenize(text, fast_ids, "text");
  } catch (const shmtrain::Error&) {
    return 0;
  }
  if (ids != fast_ids) __builtin_trap();
  return 0;
}
