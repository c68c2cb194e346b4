#include "codecs.hpp"

#include <snappy.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include <climits>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data::parquet {
namespace {

[[noreturn]] void fail_size(Codec codec, std::size_t declared, std::size_t held) {
  fail_input("the page declares {} bytes uncompressed but its {} data holds {}", declared, codec_name(codec),
             held);
}

void snappy_decompress(std::span<const std::byte> input, std::span<std::byte> output) {
  const auto* in = reinterpret_cast<const char*>(input.data());
  std::size_t held = 0;
  if (!snappy::GetUncompressedLength(in, input.size(), &held))
    fail_input("the SNAPPY data is damaged (no length)");
  if (held != output.size()) fail_size(Codec::snappy, output.size(), held);
  if (!snappy::RawUncompress(in, input.size(), reinterpret_cast<char*>(output.data()))) {
    fail_input("the SNAPPY data is damaged");
  }
}

void zstd_decompress(std::span<const std::byte> input, std::span<std::byte> output) {
  const std::size_t held = ZSTD_decompress(output.data(), output.size(), input.data(), input.size());
  if (ZSTD_isError(held)) {
    if (ZSTD_getErrorCode(held) == ZSTD_error_dstSize_tooSmall) {
      fail_input("the page declares {} bytes uncompressed but its ZSTD data holds more", output.size());
    }
    fail_input("the ZSTD data is damaged ({})", ZSTD_getErrorName(held));
  }
  if (held != output.size()) fail_size(Codec::zstd, output.size(), held);
}

// `output` has one byte more than the page declares, so that a stream holding more is seen.
// Concatenated gzip members (some writers compress in chunks) are read one after another.
void gzip_decompress(std::span<const std::byte> input, std::span<std::byte> output) {
  if (input.size() > UINT_MAX || output.size() > UINT_MAX) fail_input("a GZIP page over 4 GiB");
  z_stream stream{};
  // 15 + 32: a window of 32 KiB and either header, gzip (what Parquet specifies) or zlib
  // (what some early writers wrote).
  if (inflateInit2(&stream, 15 + 32) != Z_OK) throw Error("zlib: inflateInit2 failed (out of memory?)");
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<std::byte*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = reinterpret_cast<Bytef*>(output.data());
  stream.avail_out = static_cast<uInt>(output.size());
  int status;
  for (;;) {
    status = inflate(&stream, Z_FINISH);
    if (status != Z_STREAM_END || stream.avail_in == 0 || stream.avail_out == 0) break;
    if (inflateReset(&stream) != Z_OK) break;
  }
  const std::size_t held = output.size() - stream.avail_out;
  const std::string message = stream.msg != nullptr ? stream.msg : "";
  inflateEnd(&stream);
  const std::size_t declared = output.size() - 1;
  if (held > declared)
    fail_input("the page declares {} bytes uncompressed but its GZIP data holds more", declared);
  if (status != Z_STREAM_END) {
    fail_input("the GZIP data is damaged ({})", message.empty() ? "it ends early" : message);
  }
  if (held != declared) fail_size(Codec::gzip, declared, held);
}

}  // namespace

std::span<std::byte> PageBuffer::reserve(std::size_t size) {
  if (size > capacity_ || !data_) {
    data_ = std::make_unique_for_overwrite<std::byte[]>(size == 0 ? 1 : size);
    capacity_ = size;
  }
  return {data_.get(), size};
}

std::span<const std::byte> decompress(Codec codec, std::span<const std::byte> input,
                                      std::size_t uncompressed_size, PageBuffer& buffer) {
  // Some writers leave the values of an all-null page out altogether, compressed or not.
  if (input.empty() && uncompressed_size == 0) return input;
  switch (codec) {
    case Codec::uncompressed:
      if (input.size() != uncompressed_size) {
        fail_input("an uncompressed page of {} bytes declares {} bytes uncompressed", input.size(),
                   uncompressed_size);
      }
      return input;
    case Codec::snappy: {
      const std::span<std::byte> out = buffer.reserve(uncompressed_size);
      snappy_decompress(input, out);
      return out;
    }
    case Codec::zstd: {
      const std::span<std::byte> out = buffer.reserve(uncompressed_size);
      zstd_decompress(input, out);
      return out;
    }
    case Codec::gzip: {
      const std::span<std::byte> out = buffer.reserve(uncompressed_size + 1);
      gzip_decompress(input, out);
      return out.first(uncompressed_size);
    }
    default:
      fail_input(
          "compression codec {} is not supported (shmtrain reads UNCOMPRESSED, SNAPPY, GZIP and ZSTD); "
          "rewrite the file with one of those, e.g. pyarrow.parquet.write_table(table, path, "
          "compression='zstd')",
          codec_name(codec));
  }
}

}  // namespace shmtrain::data::parquet
