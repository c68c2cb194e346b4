#pragma once
// The RLE / bit-packing hybrid of Parquet's Encodings.md, which holds repetition and
// definition levels, dictionary indices and RLE booleans: runs, each a ULEB128 header whose
// low bit says bit-packed (header >> 1 groups of 8 values of bit_width bits, LSB first) or
// repeated (header >> 1 copies of one value in ceil(bit_width / 8) little-endian bytes).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace shmtrain::data::parquet {

// Smallest width that holds 0..max_value.
int bit_width_of(std::uint32_t max_value);

// Decodes exactly `count` values into out[0..count) and returns the bytes the runs used.
// InputError when `data` ends first or a value exceeds `max_value` ("<what> N above M").
// A last bit-packed run may stop at the end of `data` once `count` values are read.
template <typename Out>
std::size_t decode_rle_hybrid(std::span<const std::byte> data, int bit_width, std::size_t count,
                              std::uint32_t max_value, std::string_view what, Out* out);

}  // namespace shmtrain::data::parquet
