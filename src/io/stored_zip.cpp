#include "stored_zip.hpp"

#include <cstdint>
#include <cstring>

#include "shmtrain/common/error.hpp"

namespace shmtrain::io {
namespace {

std::uint64_t little(std::span<const std::byte> bytes, std::size_t at, std::size_t size, const std::string& where) {
  if (at > bytes.size() || size > bytes.size() - at) fail_input("{}: the zip archive is truncated", where);
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < size; ++i) value |= static_cast<std::uint64_t>(bytes[at + i]) << (8 * i);
  return value;
}

constexpr std::uint32_t kEndOfCentralDirectory = 0x06054b50;
constexpr std::uint32_t kZip64Locator = 0x07064b50;
constexpr std::uint32_t kZip64End = 0x06064b50;
constexpr std::uint32_t kCentralEntry = 0x02014b50;
constexpr std::uint32_t kLocalHeader = 0x04034b50;

}  // namespace

std::map<std::string, std::span<const std::byte>> stored_zip_members(std::span<const std::byte> bytes,
                                                                     const std::string& where) {
  const auto u16 = [&](std::size_t at) { return little(bytes, at, 2, where); };
  const auto u32 = [&](std::size_t at) { return little(bytes, at, 4, where); };
  const auto u64 = [&](std::size_t at) { return little(bytes, at, 8, where); };
  // The end record is the last 22 bytes plus a comment of at most 65,535.
  if (bytes.size() < 22) fail_input("{}: too short for a zip archive", where);
  std::size_t end = bytes.size() - 22;
  const std::size_t lowest = bytes.size() > 22 + 65535 ? bytes.size() - 22 - 65535 : 0;
  while (u32(end) != kEndOfCentralDirectory) {
    if (end == lowest) fail_input("{}: no end of central directory: not a zip archive, or truncated", where);
    --end;
  }
  std::uint64_t entries = u16(end + 10);
  std::uint64_t directory = u32(end + 16);
  if (end >= 20 && u32(end - 20) == kZip64Locator) {  // zip64: the real counts and offsets
    const std::uint64_t record = u64(end - 20 + 8);
    if (u32(record) != kZip64End) fail_input("{}: a broken zip64 end record", where);
    entries = u64(record + 32);
    directory = u64(record + 48);
  }
  std::map<std::string, std::span<const std::byte>> members;
  std::size_t at = directory;
  for (std::uint64_t e = 0; e < entries; ++e) {
    if (u32(at) != kCentralEntry) fail_input("{}: a broken central directory entry", where);
    const std::uint64_t flags = u16(at + 8), method = u16(at + 10);
    std::uint64_t compressed = u32(at + 20), size = u32(at + 24);
    const std::size_t name_length = u16(at + 28), extra_length = u16(at + 30), comment_length = u16(at + 32);
    std::uint64_t local = u32(at + 42);
    if (at + 46 > bytes.size() || name_length > bytes.size() - at - 46) fail_input("{}: the zip archive is truncated", where);
    std::string name(reinterpret_cast<const char*>(bytes.data() + at + 46), name_length);
    // zip64's extra field: the sizes and offset that did not fit, in this order.
    for (std::size_t x = at + 46 + name_length; x + 4 <= at + 46 + name_length + extra_length;) {
      const std::uint64_t id = u16(x), length = u16(x + 2);
      if (id == 1) {
        std::size_t field = x + 4;
        if (size == 0xffffffff) size = u64(field), field += 8;
        if (compressed == 0xffffffff) compressed = u64(field), field += 8;
        if (local == 0xffffffff) local = u64(field);
      }
      x += 4 + length;
    }
    if ((flags & 1) != 0) fail_input("{}: member '{}' is encrypted", where, name);
    if (method != 0) {
      fail_input("{}: member '{}' is compressed (method {}); torch.save stores its members uncompressed", where, name,
                 method);
    }
    if (compressed != size) fail_input("{}: member '{}' has two sizes", where, name);
    if (u32(local) != kLocalHeader) fail_input("{}: member '{}' has no local header", where, name);
    const std::uint64_t data = local + 30 + u16(local + 26) + u16(local + 28);
    if (data > bytes.size() || size > bytes.size() - data) {
      fail_input("{}: member '{}' ends past the end of the file (truncated?)", where, name);
    }
    members[name] = bytes.subspan(data, size);
    at += 46 + name_length + extra_length + comment_length;
  }
  return members;
}

}  // namespace shmtrain::io
