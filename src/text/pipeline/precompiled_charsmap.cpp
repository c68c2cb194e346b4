#include "precompiled_charsmap.hpp"

#include <cstring>

#include "shmtrain/common/error.hpp"

namespace shmtrain::text::pipeline {
namespace {

// A darts-clone unit: bit 8 says a leaf hangs below, the low 31 bits of a leaf are its value,
// the label is the low byte (with bit 31 set on leaves so that no byte matches them), and
// the offset to the children is bits 10.. shifted left by 8 when bit 9 is set.
bool has_leaf(std::uint32_t unit) { return ((unit >> 8) & 1) == 1; }
std::uint32_t value(std::uint32_t unit) { return unit & ((1u << 31) - 1); }
std::uint32_t label(std::uint32_t unit) { return unit & ((1u << 31) | 0xFF); }
std::uint32_t offset(std::uint32_t unit) { return (unit >> 10) << ((unit & (1u << 9)) >> 6); }

}  // namespace

PrecompiledCharsmap::PrecompiledCharsmap(std::string_view blob, const std::string& what) {
  if (blob.size() < 4) fail_input("{}: the charsmap holds {} bytes, fewer than its 4-byte header", what, blob.size());
  std::uint32_t trie_bytes = 0;
  for (int i = 3; i >= 0; --i) trie_bytes = (trie_bytes << 8) | static_cast<unsigned char>(blob[static_cast<std::size_t>(i)]);
  if (trie_bytes % 4 != 0 || trie_bytes > blob.size() - 4 || trie_bytes == 0) {
    fail_input("{}: the charsmap's trie size {} does not fit its {} bytes", what, trie_bytes, blob.size());
  }
  units_.resize(trie_bytes / 4);
  for (std::size_t i = 0; i < units_.size(); ++i) {
    std::uint32_t u = 0;
    for (int b = 3; b >= 0; --b) u = (u << 8) | static_cast<unsigned char>(blob[4 + i * 4 + static_cast<std::size_t>(b)]);
    units_[i] = u;
  }
  normalized_ = std::string(blob.substr(4 + trie_bytes));
  if (!normalized_.empty() && normalized_.back() != '\0') {
    fail_input("{}: the charsmap's replacement strings do not end with a NUL", what);
  }
}

std::optional<std::string_view> PrecompiledCharsmap::transform(std::string_view chunk) const {
  std::size_t node = 0;
  std::uint32_t unit = units_[0];
  node ^= offset(unit);
  for (const char ch : chunk) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == 0) break;
    node ^= c;
    if (node >= units_.size()) return std::nullopt;
    unit = units_[node];
    if (label(unit) != c) return std::nullopt;
    node ^= offset(unit);
    if (node >= units_.size()) return std::nullopt;
    if (has_leaf(unit)) {
      const std::uint32_t at = value(units_[node]);
      if (at >= normalized_.size()) return std::nullopt;
      const std::size_t end = normalized_.find('\0', at);
      return std::string_view(normalized_).substr(at, end - at);
    }
  }
  return std::nullopt;
}

}  // namespace shmtrain::text::pipeline
