#pragma once
// A reader of the Thrift compact protocol, the encoding of Parquet's footer and page headers
// (thrift/doc/specs/thrift-compact-protocol.md). Structs are read field by field: the caller
// takes the fields it knows and the reader skips the rest, whatever their type, so files of
// newer writers read. Every length and count is checked against the bytes left, and structs,
// lists and maps may nest at most kMaxDepth deep: a crafted input cannot make it read past
// its span, allocate by a declared count, or recurse without bound.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace shmtrain::data::parquet {

// Type ids of the compact protocol (field headers and container element types).
enum class CompactType : std::uint8_t {
  stop = 0,
  bool_true = 1,
  bool_false = 2,
  i8 = 3,
  i16 = 4,
  i32 = 5,
  i64 = 6,
  real = 7,  // double
  binary = 8,
  list = 9,
  set = 10,
  map = 11,
  structure = 12,
};

struct ListHeader {
  CompactType element;
  std::size_t size;
};

class CompactReader {
 public:
  static constexpr int kMaxDepth = 32;

  explicit CompactReader(std::span<const std::byte> bytes) : bytes_(bytes) {}

  // Reads the struct at the cursor to its stop byte, calling on_field(id, type) for each
  // field. on_field reads the value with the calls below and returns true, or returns false
  // to have it skipped.
  template <typename OnField>
  void read_struct(OnField&& on_field) {
    enter();
    std::int16_t last_id = 0;
    for (;;) {
      CompactType type;
      std::int16_t id;
      if (!next_field(last_id, type, id)) break;
      last_id = id;
      if (!on_field(id, type)) skip(type);
    }
    leave();
  }

  // The value of a field (or list element) of `type`; InputError when `type` is not the one
  // the caller expects (a field of the wrong type means a damaged or foreign file).
  bool read_bool(CompactType type);
  std::int8_t read_i8(CompactType type);
  std::int32_t read_i32(CompactType type);
  std::int64_t read_i64(CompactType type);
  std::string_view read_binary(CompactType type);  // valid while the span lives
  ListHeader read_list(CompactType type);          // then read `size` elements
  // Reads a list of structs, calling on_element(index) with the cursor on each.
  template <typename OnElement>
  void read_struct_list(CompactType type, OnElement&& on_element) {
    const ListHeader list = read_list(type);
    expect(list.element, CompactType::structure);
    enter();
    for (std::size_t i = 0; i < list.size; ++i) on_element(i);
    leave();
  }
  // Reads a list of binary strings.
  template <typename OnElement>
  void read_binary_list(CompactType type, OnElement&& on_element) {
    const ListHeader list = read_list(type);
    expect(list.element, CompactType::binary);
    for (std::size_t i = 0; i < list.size; ++i) on_element(read_binary(CompactType::binary));
  }
  void skip(CompactType type);

  std::size_t position() const { return position_; }
  void expect(CompactType actual, CompactType expected) const;

 private:
  bool next_field(std::int16_t last_id, CompactType& type, std::int16_t& id);
  std::uint8_t byte();
  std::uint64_t varint(int max_bytes);
  void enter();
  void leave() { --depth_; }
  [[noreturn]] void fail(std::string_view what) const;

  std::span<const std::byte> bytes_;
  std::size_t position_ = 0;
  int depth_ = 0;
};

}  // namespace shmtrain::data::parquet
