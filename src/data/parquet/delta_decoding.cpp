// DELTA_BINARY_PACKED and the two byte-array encodings built on it (Encodings.md):
//   <block size> <miniblocks per block> <total value count> <first value>   (ULEB128, zigzag)
//   then blocks: <min delta (zigzag)> <one bit width byte per miniblock> <miniblocks>
// where each value is the previous one + min delta + its miniblock's packed number, in
// wrapping 64-bit arithmetic. Miniblocks hold (block size / miniblocks) values each, padded;
// miniblocks past the last value are not stored.
#include <string>

#include "shmtrain/common/error.hpp"
#include "value_decoders.hpp"

namespace shmtrain::data::parquet {
namespace {

class Cursor {
 public:
  explicit Cursor(std::span<const std::byte> data) : data_(data) {}

  std::uint64_t uleb() {
    std::uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) fail_input("DELTA data ends inside a header");
      const auto b = static_cast<std::uint8_t>(data_[pos_++]);
      value |= static_cast<std::uint64_t>(b & 0x7F) << shift;
      if ((b & 0x80) == 0) return value;
    }
    fail_input("DELTA data holds a varint longer than 64 bits");
  }
  std::uint64_t zigzag() {
    const std::uint64_t n = uleb();
    return (n >> 1) ^ (~(n & 1) + 1);
  }
  std::uint8_t byte() {
    if (pos_ >= data_.size()) fail_input("DELTA data ends inside a block header");
    return static_cast<std::uint8_t>(data_[pos_++]);
  }
  std::size_t left() const { return data_.size() - pos_; }
  std::size_t position() const { return pos_; }
  const std::byte* here() const { return data_.data() + pos_; }
  void advance(std::size_t n) { pos_ += n; }

 private:
  std::span<const std::byte> data_;
  std::size_t pos_ = 0;
};

// Value `index` of `width` bits (at most 64) packed LSB first from `p`.
std::uint64_t unpack(const std::byte* p, std::size_t index, int width) {
  std::size_t bit = index * static_cast<std::size_t>(width);
  std::uint64_t value = 0;
  int got = 0;
  while (got < width) {
    const unsigned shift = bit % 8;
    const int take = std::min(8 - static_cast<int>(shift), width - got);
    const std::uint64_t bits = (static_cast<std::uint8_t>(p[bit / 8]) >> shift) & ((1u << take) - 1);
    value |= bits << got;
    got += take;
    bit += static_cast<std::size_t>(take);
  }
  return value;
}

std::string_view as_text(const std::byte* p, std::size_t n) { return {reinterpret_cast<const char*>(p), n}; }

// The lengths of DELTA_LENGTH_BYTE_ARRAY as sizes, each checked non-negative.
std::size_t decode_lengths(std::span<const std::byte> data, std::size_t count,
                           std::vector<std::int64_t>& lengths, std::string_view what) {
  const std::size_t used = decode_delta_integers(data, count, lengths);
  for (const std::int64_t length : lengths) {
    if (length < 0) fail_input("a negative {} ({})", what, length);
  }
  return used;
}

}  // namespace

std::size_t decode_delta_integers(std::span<const std::byte> data, std::size_t count,
                                  std::vector<std::int64_t>& out) {
  Cursor in(data);
  const std::uint64_t block_size = in.uleb();
  const std::uint64_t miniblocks = in.uleb();
  const std::uint64_t total = in.uleb();
  std::uint64_t value = in.zigzag();
  if (block_size == 0 || block_size % 128 != 0 || block_size > (1u << 20) || miniblocks == 0 ||
      block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0) {
    fail_input("DELTA_BINARY_PACKED blocks of {} values in {} miniblocks", block_size, miniblocks);
  }
  if (total != count) fail_input("DELTA_BINARY_PACKED data of {} values where the page has {}", total, count);
  out.clear();
  out.reserve(count);
  if (count == 0) return in.position();
  out.push_back(static_cast<std::int64_t>(value));
  const std::size_t per_miniblock = static_cast<std::size_t>(block_size / miniblocks);
  while (out.size() < count) {
    const std::uint64_t min_delta = in.zigzag();
    if (in.left() < miniblocks) fail_input("DELTA_BINARY_PACKED data ends inside a block header");
    const std::byte* widths = in.here();
    in.advance(static_cast<std::size_t>(miniblocks));
    for (std::size_t m = 0; m < miniblocks && out.size() < count; ++m) {
      const int width = static_cast<int>(static_cast<std::uint8_t>(widths[m]));
      if (width > 64) fail_input("DELTA_BINARY_PACKED miniblock of bit width {}", width);
      const std::size_t bytes = per_miniblock * static_cast<std::size_t>(width) / 8;
      if (in.left() < bytes) fail_input("DELTA_BINARY_PACKED data ends inside a miniblock");
      const std::byte* packed = in.here();
      for (std::size_t i = 0; i < per_miniblock && out.size() < count; ++i) {
        value += min_delta + unpack(packed, i, width);
        out.push_back(static_cast<std::int64_t>(value));
      }
      in.advance(bytes);
    }
  }
  return in.position();
}

void decode_delta_binary_packed(std::span<const std::byte> data, std::size_t count, ValueSink& sink) {
  std::vector<std::int64_t> values;
  decode_delta_integers(data, count, values);
  const bool is_int32 = sink.leaf().type == PhysicalType::int32;
  for (const std::int64_t v : values) {
    if (is_int32) {
      sink.int32(static_cast<std::int32_t>(static_cast<std::uint32_t>(v)));
    } else {
      sink.int64(v);
    }
  }
}

void decode_delta_length_byte_array(std::span<const std::byte> data, std::size_t count, ValueSink& sink) {
  std::vector<std::int64_t> lengths;
  std::size_t pos = decode_lengths(data, count, lengths, "DELTA_LENGTH_BYTE_ARRAY length");
  for (const std::int64_t length : lengths) {
    const auto n = static_cast<std::uint64_t>(length);
    if (n > data.size() - pos) fail_input("DELTA_LENGTH_BYTE_ARRAY value of {} bytes runs past the page", n);
    sink.bytes(as_text(data.data() + pos, static_cast<std::size_t>(n)));
    pos += static_cast<std::size_t>(n);
  }
}

void decode_delta_byte_array(std::span<const std::byte> data, std::size_t count, DecodeBudget& budget,
                             ValueSink& sink) {
  std::vector<std::int64_t> prefixes, suffixes;
  std::size_t pos = decode_lengths(data, count, prefixes, "DELTA_BYTE_ARRAY prefix length");
  pos += decode_lengths(data.subspan(pos), count, suffixes, "DELTA_BYTE_ARRAY suffix length");
  std::string previous, value;
  for (std::size_t i = 0; i < count; ++i) {
    const auto prefix = static_cast<std::uint64_t>(prefixes[i]);
    const auto suffix = static_cast<std::uint64_t>(suffixes[i]);
    if (prefix > previous.size()) {
      fail_input("DELTA_BYTE_ARRAY value {} shares {} bytes with a previous value of {}", i + 1, prefix,
                 previous.size());
    }
    if (suffix > data.size() - pos)
      fail_input("DELTA_BYTE_ARRAY value of {} bytes runs past the page", suffix);
    // The value is built before the sink charges it: charge it here first, so that prefixes
    // cannot grow values quadratically unseen.
    budget.charge(static_cast<std::size_t>(prefix + suffix));
    value.assign(previous, 0, static_cast<std::size_t>(prefix));
    value.append(as_text(data.data() + pos, static_cast<std::size_t>(suffix)));
    pos += static_cast<std::size_t>(suffix);
    sink.bytes(value);
    previous.swap(value);
  }
}

}  // namespace shmtrain::data::parquet
