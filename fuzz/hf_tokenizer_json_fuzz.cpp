// Any tokenizer.json through the Hugging Face pipeline's reader (normalizers, pre-tokenizers
// with their regular expressions, BPE/Unigram/WordPiece/WordLevel, post-processors, added
// tokens); what loads then encodes a fixed text with a pair, pre-split words and truncation.
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = shmtrain::fuzz::write_input("tokenizer.json", shmtrain::fuzz::as_text(data, size));
  try {
    const auto tokenizer = shmtrain::text::HfTokenizer::load(path);
    tokenizer.encode_text("Hello <mask> wörld! 每个字 e\u0301 \U0001F600  x", "a pair", true, {8});
    const std::vector<std::string> words = {"New", "York", "\u00e9t\u00e9"};
    tokenizer.encode_words(words, nullptr, true, {});
  } catch (const shmtrain::Error&) {
  }
  return 0;
}
