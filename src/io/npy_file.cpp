#include "shmtrain/io/npy_file.hpp"

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <string_view>

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

namespace {

// The header's Python dict literal, {'key': value, ...}: each value's text (a quoted string
// without its quotes, True/False, or a tuple's text with its parentheses).
std::map<std::string, std::string> header_fields(std::string_view text, const std::string& where) {
  std::map<std::string, std::string> out;
  std::size_t i = 0;
  const auto skip = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  const auto bad = [&](const char* what) -> void { fail_input("{}: the .npy header {}", where, what); };
  const auto quoted = [&] {
    const char quote = text[i];
    const std::size_t end = text.find(quote, i + 1);
    if (end == std::string_view::npos) bad("has an unterminated string");
    std::string value(text.substr(i + 1, end - i - 1));
    i = end + 1;
    return value;
  };
  skip();
  if (i >= text.size() || text[i] != '{') bad("is not a dict");
  ++i;
  for (;;) {
    skip();
    if (i < text.size() && text[i] == '}') break;
    if (i >= text.size() || (text[i] != '\'' && text[i] != '"')) bad("has a key that is not a string");
    const std::string key = quoted();
    skip();
    if (i >= text.size() || text[i] != ':') bad("misses a ':'");
    ++i;
    skip();
    if (i >= text.size()) bad("ends inside a value");
    std::string value;
    if (text[i] == '\'' || text[i] == '"') {
      value = quoted();
    } else if (text[i] == '(') {
      const std::size_t end = text.find(')', i);
      if (end == std::string_view::npos) bad("has an unterminated tuple");
      value = std::string(text.substr(i, end - i + 1));
      i = end + 1;
    } else {
      const std::size_t begin = i;
      while (i < text.size() && std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
      value = std::string(text.substr(begin, i - begin));
    }
    out[key] = value;
    skip();
    if (i < text.size() && text[i] == ',') ++i;
  }
  return out;
}

// "(rows, cols)" -> the two sizes.
std::pair<std::int64_t, std::int64_t> matrix_shape(const std::string& tuple, const std::string& where) {
  std::vector<std::int64_t> dims;
  std::int64_t value = -1;
  for (const char c : tuple.substr(1)) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      const std::int64_t digit = c - '0';
      if (value > (std::numeric_limits<std::int64_t>::max() - digit) / 10) fail_input("{}: a .npy shape too large", where);
      value = (value < 0 ? 0 : value * 10) + digit;
    } else if (c == ',' || c == ')') {
      if (value >= 0) dims.push_back(value);
      value = -1;
    } else if (!std::isspace(static_cast<unsigned char>(c))) {
      fail_input("{}: the .npy shape {} is not a tuple of sizes", where, tuple);
    }
  }
  if (dims.size() != 2) fail_input("{}: the .npy shape {} is not a matrix (rows, cols)", where, tuple);
  return {dims[0], dims[1]};
}

}  // namespace

NpyMatrix read_npy_f32(const std::filesystem::path& path) {
  const std::string where = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_input("{}: cannot open the .npy file", where);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) fail_input("{}: not a .npy file (no NUMPY magic)", where);
  const auto major = static_cast<unsigned char>(bytes[6]);
  if (major < 1 || major > 3) fail_input("{}: .npy version {} (1 to 3 are read)", where, major);
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) fail_input("{}: the .npy file ends inside its header", where);
  std::size_t header_length = 0;
  for (std::size_t b = 0; b < length_bytes; ++b) {
    header_length |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + b])) << (8 * b);
  }
  const std::size_t data = 8 + length_bytes + header_length;
  if (data > bytes.size()) fail_input("{}: the .npy file ends inside its header", where);
  const auto fields = header_fields(std::string_view(bytes).substr(8 + length_bytes, header_length), where);
  const auto field = [&](const char* key) {
    const auto found = fields.find(key);
    if (found == fields.end()) fail_input("{}: the .npy header has no '{}'", where, key);
    return found->second;
  };
  if (const std::string descr = field("descr"); descr != "<f4" && descr != "=f4") {
    fail_input("{}: .npy dtype '{}': float32 ('<f4') is read", where, descr);
  }
  if (field("fortran_order") != "False") fail_input("{}: a Fortran-order .npy array (C order is read)", where);
  const auto [rows, cols] = matrix_shape(field("shape"), where);
  const std::size_t payload = bytes.size() - data;
  if (cols != 0 && static_cast<std::uint64_t>(rows) > payload / sizeof(float) / static_cast<std::uint64_t>(cols)) {
    fail_input("{}: the .npy shape ({}, {}) needs more data than the file's {} bytes", where, rows, cols, payload);
  }
  const auto count = static_cast<std::size_t>(rows * cols);
  if (count * sizeof(float) != payload) {
    fail_input("{}: the .npy shape ({}, {}) is {} bytes of data; the file has {}", where, rows, cols,
               count * sizeof(float), payload);
  }
  NpyMatrix out;
  out.rows = rows;
  out.cols = cols;
  out.values.resize(count);
  std::memcpy(out.values.data(), bytes.data() + data, payload);
  return out;
}

}  // namespace shmtrain::io
