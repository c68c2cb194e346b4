// PLAIN, RLE booleans and BYTE_STREAM_SPLIT: the encodings whose values sit at positions
// known from their width.
#include <bit>
#include <cstring>
#include <string_view>

#include "rle_hybrid.hpp"
#include "shmtrain/common/error.hpp"
#include "value_decoders.hpp"

namespace shmtrain::data::parquet {
namespace {

static_assert(std::endian::native == std::endian::little, "Parquet stores values little-endian");

template <typename T>
T load(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

std::size_t value_width(const SchemaNode& leaf) {
  switch (leaf.type) {
    case PhysicalType::int32:
    case PhysicalType::real:
      return 4;
    case PhysicalType::int64:
    case PhysicalType::double_:
      return 8;
    case PhysicalType::fixed_len_byte_array:
      return static_cast<std::size_t>(leaf.type_length);
    default:
      return 0;
  }
}

// One fixed-width value at `p` into the sink.
void put_fixed(const std::byte* p, ValueSink& sink) {
  switch (sink.leaf().type) {
    case PhysicalType::int32:
      sink.int32(load<std::int32_t>(p));
      return;
    case PhysicalType::int64:
      sink.int64(load<std::int64_t>(p));
      return;
    case PhysicalType::real:
      sink.real(load<float>(p));
      return;
    case PhysicalType::double_:
      sink.real(load<double>(p));
      return;
    default:
      sink.bytes(std::string_view(reinterpret_cast<const char*>(p),
                                  static_cast<std::size_t>(sink.leaf().type_length)));
  }
}

[[noreturn]] void fail_short(std::string_view encoding, std::size_t done, std::size_t count) {
  fail_input("the {} values end after {} of {}", encoding, done, count);
}

}  // namespace

void decode_plain(std::span<const std::byte> data, std::size_t count, ValueSink& sink) {
  const SchemaNode& leaf = sink.leaf();
  if (leaf.type == PhysicalType::boolean) {
    if (count > data.size() * 8) fail_short("PLAIN", data.size() * 8, count);
    for (std::size_t i = 0; i < count; ++i) {
      sink.boolean(((static_cast<std::uint8_t>(data[i / 8]) >> (i % 8)) & 1) != 0);
    }
    return;
  }
  if (leaf.type == PhysicalType::byte_array) {
    std::size_t pos = 0;
    for (std::size_t i = 0; i < count; ++i) {
      if (data.size() - pos < 4) fail_short("PLAIN", i, count);
      const std::uint32_t length = load<std::uint32_t>(data.data() + pos);
      pos += 4;
      if (length > data.size() - pos) {
        fail_input("PLAIN value {} of {} bytes runs past the page's {} bytes", i + 1, length, data.size());
      }
      sink.bytes(std::string_view(reinterpret_cast<const char*>(data.data() + pos), length));
      pos += length;
    }
    return;
  }
  const std::size_t width = value_width(leaf);
  if (count > data.size() / width) fail_short("PLAIN", data.size() / width, count);
  for (std::size_t i = 0; i < count; ++i) put_fixed(data.data() + i * width, sink);
}

void decode_rle_booleans(std::span<const std::byte> data, std::size_t count, ValueSink& sink) {
  if (data.size() < 4) fail_input("RLE booleans without their 4-byte length");
  const std::uint32_t length = load<std::uint32_t>(data.data());
  if (length > data.size() - 4) fail_input("RLE booleans of {} bytes in {} bytes", length, data.size() - 4);
  std::vector<std::uint8_t> bits(count);
  decode_rle_hybrid(data.subspan(4, length), 1, count, 1, "RLE boolean", bits.data());
  for (const std::uint8_t bit : bits) sink.boolean(bit != 0);
}

void decode_byte_stream_split(std::span<const std::byte> data, std::size_t count, ValueSink& sink) {
  const std::size_t width = value_width(sink.leaf());
  if (width == 0 || count > data.size() / width)
    fail_short("BYTE_STREAM_SPLIT", data.size() / (width ? width : 1), count);
  std::vector<std::byte> value(width);
  for (std::size_t i = 0; i < count; ++i) {
    for (std::size_t k = 0; k < width; ++k) value[k] = data[k * count + i];
    put_fixed(value.data(), sink);
  }
}

}  // namespace shmtrain::data::parquet
