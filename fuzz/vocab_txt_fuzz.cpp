// vocab.txt: lines, line endings, UTF-8, token bounds; then a tokenizer over it.
#include <vector>

#include "fuzz_support.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = shmtrain::fuzz::write_input("vocab.txt", shmtrain::fuzz::as_text(data, size));
  try {
    const auto tokenizer = shmtrain::text::HfTokenizer::load_bert(path);
    std::vector<std::int32_t> ids;
    tokenizer.tokenize("Hello, wörld! unaffable 每个字", ids, "text");
  } catch (const shmtrain::Error&) {
  }
  return 0;
}
