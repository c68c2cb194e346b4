#pragma once
// Building safetensors files byte by byte in tests, including malformed ones the writer
// would refuse to produce.
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace shmtrain::testing {

// 8-byte little-endian length `declared_length`, then `header` verbatim, then `data`.
inline std::string safetensors_bytes(const std::string& header, const std::string& data,
                                     std::uint64_t declared_length) {
  std::string out(8, '\0');
  std::memcpy(out.data(), &declared_length, 8);
  return out + header + data;
}
// As above with the header padded with spaces to a multiple of 8 bytes, as real writers do,
// so that the data buffer starts 8-byte aligned in the file (and in the mapping).
inline std::string safetensors_bytes(const std::string& header, const std::string& data = {}) {
  std::string padded = header;
  padded.append((8 - header.size() % 8) % 8, ' ');
  return safetensors_bytes(padded, data, padded.size());
}

// The raw little-endian bytes of `values` (float, double, std::uint16_t, ...).
template <typename T>
std::string raw_bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// A printable description of the first differing bits between two float arrays, or "" when
// they are identical bit for bit (so NaN payloads and -0.0 count).
inline std::string first_bit_mismatches(const std::vector<float>& actual,
                                        const std::vector<float>& expected) {
  if (actual.size() != expected.size()) {
    return "sizes differ: " + std::to_string(actual.size()) + " vs " + std::to_string(expected.size());
  }
  std::string report;
  int shown = 0;
  for (std::size_t i = 0; i < actual.size() && shown < 8; ++i) {
    const auto a = std::bit_cast<std::uint32_t>(actual[i]);
    const auto e = std::bit_cast<std::uint32_t>(expected[i]);
    if (a != e) {
      char line[96];
      std::snprintf(line, sizeof line, "[%zu] actual 0x%08x expected 0x%08x\n", i, a, e);
      report += line;
      ++shown;
    }
  }
  return report;
}

}  // namespace shmtrain::testing
