#include "shmtrain/io/npy_file.hpp"

#include <cstring>
#include <string>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/atomic_file.hpp"

namespace shmtrain::io {

void write_npy_f32(const std::filesystem::path& path, std::span<const float> values, std::int64_t rows,
                   std::int64_t cols) {
  if (static_cast<std::int64_t>(values.size()) != rows * cols) throw Error("write_npy_f32: values are not rows x cols");
  std::string header = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}", rows, cols);
  // The magic (6), version (2) and length (2) bytes, then the header padded with spaces and
  // ended by a newline so that the data starts on a multiple of 64 bytes.
  const std::size_t used = 10 + header.size() + 1;
  header.append((64 - used % 64) % 64, ' ');
  header.push_back('\n');
  std::string bytes = "\x93NUMPY";
  bytes.push_back('\x01');
  bytes.push_back('\x00');
  bytes.push_back(static_cast<char>(header.size() & 0xff));
  bytes.push_back(static_cast<char>((header.size() >> 8) & 0xff));
  bytes += header;
  const std::size_t data = bytes.size();
  bytes.resize(data + values.size() * sizeof(float));
  std::memcpy(bytes.data() + data, values.data(), values.size() * sizeof(float));  // x86-64: little-endian
  write_file_atomically(path, bytes);
}

}  // namespace shmtrain::io
