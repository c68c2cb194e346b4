#pragma once
// TFRecord framing, the container of TensorBoard event files (tensorflow/core/lib/io/record_writer.cc,
// tensorboard/summary/writer/record_writer.py). Each record is
//
//   uint64 length (little-endian) | uint32 masked_crc32c(length bytes) | data | uint32 masked_crc32c(data)
//
// with masked_crc32c(x) = rotate_right(crc32c(x), 15) + 0xa282ead8 (mod 2^32), and crc32c the
// CRC-32C of iSCSI (Castagnoli polynomial 0x1EDC6F41, reflected, initial value and final xor
// 0xFFFFFFFF; RFC 3720 appendix B.4).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shmtrain::report {

// CRC-32C of `bytes`: crc32c("123456789") == 0xE3069283.
std::uint32_t crc32c(std::span<const std::byte> bytes);
std::uint32_t crc32c(std::string_view bytes);

// The checksum TFRecord stores: a CRC of data that holds CRCs is weak, so it is rotated and offset.
std::uint32_t mask_crc32c(std::uint32_t crc);
std::uint32_t masked_crc32c(std::string_view bytes);

inline constexpr std::size_t kTfRecordOverhead = 8 + 4 + 4;  // length, its CRC, the data's CRC

// One record: `data` with its length and both checksums around it.
std::string frame_tfrecord(std::string_view data);

// The records in `bytes`, in order, with every length and data checksum checked. Throws
// InputError naming `source` (a file name, for the message) and the record, numbered from 0,
// for a checksum that does not match or a record cut short (a writer killed mid-record).
std::vector<std::string> split_tfrecords(std::string_view bytes, std::string_view source);

// split_tfrecords over a whole file. Throws InputError when the file cannot be opened or read.
std::vector<std::string> read_tfrecords(const std::filesystem::path& file);

}  // namespace shmtrain::report
