#include "thrift_compact.hpp"

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data::parquet {
namespace {

std::int64_t zigzag(std::uint64_t n) {
  return static_cast<std::int64_t>(n >> 1) ^ -static_cast<std::int64_t>(n & 1);
}

std::string_view type_name(CompactType type) {
  switch (type) {
    case CompactType::stop:
      return "stop";
    case CompactType::bool_true:
    case CompactType::bool_false:
      return "bool";
    case CompactType::i8:
      return "i8";
    case CompactType::i16:
      return "i16";
    case CompactType::i32:
      return "i32";
    case CompactType::i64:
      return "i64";
    case CompactType::real:
      return "double";
    case CompactType::binary:
      return "binary";
    case CompactType::list:
      return "list";
    case CompactType::set:
      return "set";
    case CompactType::map:
      return "map";
    case CompactType::structure:
      return "struct";
  }
  return "?";
}

bool is_bool(CompactType type) { return type == CompactType::bool_true || type == CompactType::bool_false; }

CompactType checked_type(std::uint8_t id, bool& ok) {
  ok = id >= 1 && id <= 12;
  return static_cast<CompactType>(id);
}

}  // namespace

void CompactReader::fail(std::string_view what) const {
  fail_input("{} at byte {} of {}", what, position_, bytes_.size());
}

void CompactReader::expect(CompactType actual, CompactType expected) const {
  const bool same = actual == expected || (is_bool(actual) && is_bool(expected));
  if (!same) fail(fmt::format("a {} where a {} belongs", type_name(actual), type_name(expected)));
}

void CompactReader::enter() {
  if (++depth_ > kMaxDepth) fail(fmt::format("structures nest deeper than {} levels", kMaxDepth));
}

std::uint8_t CompactReader::byte() {
  if (position_ >= bytes_.size()) fail("the metadata ends inside a value");
  return static_cast<std::uint8_t>(bytes_[position_++]);
}

std::uint64_t CompactReader::varint(int max_bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < max_bytes; ++i) {
    const std::uint8_t b = byte();
    value |= static_cast<std::uint64_t>(b & 0x7F) << (7 * i);
    if ((b & 0x80) == 0) {
      // The last of ten bytes holds bit 63 only.
      if (i == 9 && b > 1) fail("a varint wider than 64 bits");
      return value;
    }
  }
  fail(fmt::format("a varint longer than {} bytes", max_bytes));
}

bool CompactReader::next_field(std::int16_t last_id, CompactType& type, std::int16_t& id) {
  const std::uint8_t header = byte();
  if (header == 0) return false;
  bool ok;
  type = checked_type(header & 0x0F, ok);
  if (!ok) fail(fmt::format("an unknown field type {}", header & 0x0F));
  const int delta = header >> 4;
  if (delta != 0) {
    id = static_cast<std::int16_t>(last_id + delta);
  } else {
    const std::int64_t value = zigzag(varint(3));
    if (value < INT16_MIN || value > INT16_MAX) fail("a field id out of range");
    id = static_cast<std::int16_t>(value);
  }
  return true;
}

bool CompactReader::read_bool(CompactType type) {
  expect(type, CompactType::bool_true);
  return type == CompactType::bool_true;
}

std::int8_t CompactReader::read_i8(CompactType type) {
  expect(type, CompactType::i8);
  return static_cast<std::int8_t>(byte());
}

std::int32_t CompactReader::read_i32(CompactType type) {
  expect(type, CompactType::i32);
  const std::int64_t value = zigzag(varint(5));
  if (value < INT32_MIN || value > INT32_MAX) fail("an i32 out of range");
  return static_cast<std::int32_t>(value);
}

std::int64_t CompactReader::read_i64(CompactType type) {
  expect(type, CompactType::i64);
  return zigzag(varint(10));
}

std::string_view CompactReader::read_binary(CompactType type) {
  expect(type, CompactType::binary);
  const std::uint64_t size = varint(5);
  if (size > bytes_.size() - position_) {
    fail(fmt::format("a string of {} bytes with {} left", size, bytes_.size() - position_));
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes_.data() + position_), size);
  position_ += size;
  return text;
}

ListHeader CompactReader::read_list(CompactType type) {
  if (type != CompactType::set) expect(type, CompactType::list);
  const std::uint8_t header = byte();
  bool ok;
  ListHeader list{checked_type(header & 0x0F, ok), static_cast<std::size_t>(header >> 4)};
  if (!ok) fail(fmt::format("a list of unknown element type {}", header & 0x0F));
  if (list.size == 15) list.size = varint(5);
  // Every element takes a byte at least.
  if (list.size > bytes_.size() - position_) {
    fail(fmt::format("a list of {} elements with {} bytes left", list.size, bytes_.size() - position_));
  }
  return list;
}

void CompactReader::skip(CompactType type) {
  switch (type) {
    case CompactType::stop:
      fail("a stop byte where a value belongs");
    case CompactType::bool_true:
    case CompactType::bool_false:
      return;  // a field's bool lives in its header
    case CompactType::i8:
      byte();
      return;
    case CompactType::i16:
    case CompactType::i32:
    case CompactType::i64:
      varint(10);
      return;
    case CompactType::real:
      if (bytes_.size() - position_ < 8) fail("the metadata ends inside a double");
      position_ += 8;
      return;
    case CompactType::binary:
      read_binary(type);
      return;
    case CompactType::list:
    case CompactType::set: {
      const ListHeader list = read_list(type);
      enter();
      for (std::size_t i = 0; i < list.size; ++i) {
        if (is_bool(list.element)) {
          byte();  // in a container a bool is a byte of its own
        } else {
          skip(list.element);
        }
      }
      leave();
      return;
    }
    case CompactType::map: {
      const std::uint64_t size = varint(5);
      if (size == 0) return;
      const std::uint8_t types = byte();
      bool key_ok, value_ok;
      const CompactType key = checked_type(types >> 4, key_ok);
      const CompactType value = checked_type(types & 0x0F, value_ok);
      if (!key_ok || !value_ok) fail("a map of unknown key or value type");
      if (size > (bytes_.size() - position_) / 2) fail("a map larger than the bytes left");
      enter();
      for (std::uint64_t i = 0; i < size; ++i) {
        for (const CompactType t : {key, value}) {
          if (is_bool(t)) {
            byte();
          } else {
            skip(t);
          }
        }
      }
      leave();
      return;
    }
    case CompactType::structure:
      read_struct([](std::int16_t, CompactType) { return false; });
      return;
  }
  fail("an unknown type");
}

}  // namespace shmtrain::data::parquet
