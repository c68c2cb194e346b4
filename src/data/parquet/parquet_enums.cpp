#include "parquet_enums.hpp"

namespace shmtrain::data::parquet {

Encoding encoding_value(std::int32_t value) {
  if (value == 1) fail_input("encoding 1 (GROUP_VAR_INT) is not part of Parquet");
  return enum_value<Encoding>(value, 0, 9, "encoding");
}

std::string_view codec_name(Codec codec) {
  switch (codec) {
    case Codec::uncompressed:
      return "UNCOMPRESSED";
    case Codec::snappy:
      return "SNAPPY";
    case Codec::gzip:
      return "GZIP";
    case Codec::lzo:
      return "LZO";
    case Codec::brotli:
      return "BROTLI";
    case Codec::lz4:
      return "LZ4";
    case Codec::zstd:
      return "ZSTD";
    case Codec::lz4_raw:
      return "LZ4_RAW";
  }
  return "?";
}

std::string_view encoding_name(Encoding encoding) {
  switch (encoding) {
    case Encoding::plain:
      return "PLAIN";
    case Encoding::plain_dictionary:
      return "PLAIN_DICTIONARY";
    case Encoding::rle:
      return "RLE";
    case Encoding::bit_packed:
      return "BIT_PACKED";
    case Encoding::delta_binary_packed:
      return "DELTA_BINARY_PACKED";
    case Encoding::delta_length_byte_array:
      return "DELTA_LENGTH_BYTE_ARRAY";
    case Encoding::delta_byte_array:
      return "DELTA_BYTE_ARRAY";
    case Encoding::rle_dictionary:
      return "RLE_DICTIONARY";
    case Encoding::byte_stream_split:
      return "BYTE_STREAM_SPLIT";
  }
  return "?";
}

}  // namespace shmtrain::data::parquet
