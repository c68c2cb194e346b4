// Any text through BertTokenizerFast's pipeline (clean-up, NFD, accents, CJK, punctuation,
// WordPiece) with the test vocabulary: crashes, and runs whose time grows faster than the text.
#include <vector>

#include "fuzz_support.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/text/bert_tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto tokenizer = shmtrain::text::BertTokenizer::from_path(SHMTRAIN_FUZZ_VOCAB);
  std::vector<std::int32_t> ids;
  std::vector<shmtrain::text::CharSpan> offsets;
  try {
    tokenizer.tokenize_with_offsets(shmtrain::fuzz::as_text(data, size), ids, offsets);
  } catch (const shmtrain::Error&) {
  }
  return 0;
}
