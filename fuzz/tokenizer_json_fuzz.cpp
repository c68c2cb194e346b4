// tokenizer.json: its vocabulary, added tokens, normalizer; a tokenizer built from what loads
// then tokenizes a fixed text (byte 0 of the input picks which of two).
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = shmtrain::fuzz::write_input("tokenizer.json", shmtrain::fuzz::as_text(data, size));
  try {
    const auto tokenizer = shmtrain::text::HfTokenizer::load_bert(path);
    std::vector<std::int32_t> ids;
    tokenizer.tokenize("Hello, wörld! unaffable [SEP] 每个字 e\u0301", ids, "text");
  } catch (const shmtrain::Error&) {
  }
  return 0;
}
