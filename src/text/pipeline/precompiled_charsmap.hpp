#pragma once
// Internal to text/pipeline: SentencePiece's precompiled normalisation map (the
// "precompiled_charsmap" of a .model's NormalizerSpec, base64 in tokenizer.json's Precompiled
// normalizer): a little-endian u32 byte length of a double-array trie (darts-clone's units),
// the trie, then NUL-terminated replacement strings the trie's values point into.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shmtrain::text::pipeline {

class PrecompiledCharsmap {
 public:
  // Throws InputError "<what>: ..." when the blob is too short, the trie size is not a
  // multiple of 4 or beyond the blob, or the strings do not end with a NUL.
  PrecompiledCharsmap(std::string_view blob, const std::string& what);

  // The replacement of `chunk` as tokenizers' Precompiled::transform finds it: the first
  // (shortest) key that is a prefix of `chunk` names the replacement, or std::nullopt.
  std::optional<std::string_view> transform(std::string_view chunk) const;

 private:
  std::vector<std::uint32_t> units_;
  std::string normalized_;
};

}  // namespace shmtrain::text::pipeline
