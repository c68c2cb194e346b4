#pragma once
// A span of an input text in code points, the unit every tokenizer offset is counted in.
#include <cstdint>

namespace shmtrain::text {

// [begin, end) in code points (Python str indices, as Hugging Face's offset_mapping counts them).
struct CharSpan {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  bool operator==(const CharSpan&) const = default;
};

}  // namespace shmtrain::text
