#pragma once
// The value encodings of a page's data (Parquet's Encodings.md), each decoding `count`
// non-null values of the sink's column from `data` into the sink. InputError when the data
// ends before `count` values or holds something impossible. Which encodings a physical type
// may use is the caller's check (column_chunk.cpp).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "value_sink.hpp"

namespace shmtrain::data::parquet {

// PLAIN: fixed-width little-endian values, bit-packed booleans, length-prefixed byte arrays.
void decode_plain(std::span<const std::byte> data, std::size_t count, ValueSink& sink);

// RLE booleans: a 4-byte length, then the RLE / bit-packing hybrid of width 1.
void decode_rle_booleans(std::span<const std::byte> data, std::size_t count, ValueSink& sink);

// BYTE_STREAM_SPLIT: byte k of value i at data[k * count + i].
void decode_byte_stream_split(std::span<const std::byte> data, std::size_t count, ValueSink& sink);

// DELTA_BINARY_PACKED integers, exactly `count` of them, into `out` (64-bit two's complement;
// INT32 columns take the low 32 bits). Returns the bytes used.
std::size_t decode_delta_integers(std::span<const std::byte> data, std::size_t count,
                                  std::vector<std::int64_t>& out);

void decode_delta_binary_packed(std::span<const std::byte> data, std::size_t count, ValueSink& sink);
void decode_delta_length_byte_array(std::span<const std::byte> data, std::size_t count, ValueSink& sink);
void decode_delta_byte_array(std::span<const std::byte> data, std::size_t count, DecodeBudget& budget,
                             ValueSink& sink);

}  // namespace shmtrain::data::parquet
