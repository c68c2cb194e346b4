#include "shmtrain/report/tfrecord.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include <isa-l/crc.h>

#include "shmtrain/common/error.hpp"

namespace shmtrain::report {
namespace {

constexpr std::uint32_t kMaskDelta = 0xa282ead8u;

void put_le(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xffu));
}

std::uint64_t get_le(std::string_view bytes, std::size_t offset, int count) {
  std::uint64_t value = 0;
  for (int i = 0; i < count; ++i) {
    value |=
        static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[offset + static_cast<std::size_t>(i)]))
        << (8 * i);
  }
  return value;
}

}  // namespace

// ISA-L's crc32_iscsi(buffer, length, init) runs the reflected Castagnoli CRC from `init`
// without the final xor, so the standard CRC-32C is crc32_iscsi(x, n, ~0) ^ ~0 and a running
// CRC carries between calls as the raw register. Its length is an int: long inputs go in pieces.
std::uint32_t crc32c(std::span<const std::byte> bytes) {
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  std::uint32_t crc = 0xffffffffu;
  for (std::size_t offset = 0; offset < bytes.size(); offset += kPiece) {
    const std::size_t length = std::min(kPiece, bytes.size() - offset);
    // crc32_iscsi's buffer parameter is not const, but it only reads it.
    auto* data = const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(bytes.data() + offset));
    crc = crc32_iscsi(data, static_cast<int>(length), crc);
  }
  return crc ^ 0xffffffffu;
}

std::uint32_t crc32c(std::string_view bytes) {
  return crc32c(std::as_bytes(std::span(bytes.data(), bytes.size())));
}

std::uint32_t mask_crc32c(std::uint32_t crc) { return ((crc >> 15) | (crc << 17)) + kMaskDelta; }

std::uint32_t masked_crc32c(std::string_view bytes) { return mask_crc32c(crc32c(bytes)); }

std::string frame_tfrecord(std::string_view data) {
  std::string record;
  record.reserve(data.size() + kTfRecordOverhead);
  put_le(record, data.size(), 8);
  put_le(record, masked_crc32c(record), 4);
  record.append(data);
  put_le(record, masked_crc32c(data), 4);
  return record;
}

std::vector<std::string> split_tfrecords(std::string_view bytes, std::string_view source) {
  std::vector<std::string> records;
  std::size_t offset = 0;
  while (offset < bytes.size()) {
    const std::size_t index = records.size();
    const std::size_t left = bytes.size() - offset;
    if (left < 12) {
      fail_input(
          "{}: record {} at byte {} is cut short: {} bytes of its 12-byte header (the writer stopped "
          "mid-record)",
          source, index, offset, left);
    }
    const std::uint64_t length = get_le(bytes, offset, 8);
    const auto length_crc = static_cast<std::uint32_t>(get_le(bytes, offset + 8, 4));
    if (length_crc != masked_crc32c(bytes.substr(offset, 8))) {
      fail_input(
          "{}: record {} at byte {}: the length's checksum does not match (not a TFRecord file, or "
          "corrupted)",
          source, index, offset);
    }
    if (length > left - 12 || left - 12 - length < 4) {
      fail_input(
          "{}: record {} at byte {} is cut short: {} data bytes and their checksum announced, {} bytes left "
          "(the writer stopped mid-record)",
          source, index, offset, length, left - 12);
    }
    const std::string_view data = bytes.substr(offset + 12, length);
    const auto data_crc = static_cast<std::uint32_t>(get_le(bytes, offset + 12 + length, 4));
    if (data_crc != masked_crc32c(data)) {
      fail_input("{}: record {} at byte {}: the data's checksum does not match (corrupted)", source, index,
                 offset);
    }
    records.emplace_back(data);
    offset += kTfRecordOverhead + length;
  }
  return records;
}

std::vector<std::string> read_tfrecords(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) fail_input("{}: cannot open the event file: {}", file.string(), std::strerror(errno));
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) fail_input("{}: cannot read the event file", file.string());
  return split_tfrecords(bytes, file.string());
}

}  // namespace shmtrain::report
