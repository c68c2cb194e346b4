// Any text through RoBERTa's byte-level BPE and XLM-R's Unigram with its precompiled charsmap
// (the fixtures' tokenizers; byte 0 of the input picks which): crashes, and runs whose time
// grows faster than the text.
#include "fuzz_support.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto roberta = shmtrain::text::HfTokenizer::load(SHMTRAIN_FUZZ_TOKENIZERS "/roberta_bpe");
  static const auto xlmr = shmtrain::text::HfTokenizer::load(SHMTRAIN_FUZZ_TOKENIZERS "/xlmr_unigram");
  if (size == 0) return 0;
  const auto& tokenizer = data[0] % 2 == 0 ? roberta : xlmr;
  try {
    tokenizer.encode_text(shmtrain::fuzz::as_text(data + 1, size - 1));
  } catch (const shmtrain::Error&) {
  }
  return 0;
}
