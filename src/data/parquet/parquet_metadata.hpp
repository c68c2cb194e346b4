#pragma once
// The parts of Parquet's Thrift metadata (parquet-format's parquet.thrift) this reader uses:
// the footer's FileMetaData with its schema, row groups and column chunks, and each page's
// PageHeader. Decoding checks that required fields are there and that enums are known;
// offsets and sizes are checked by their users, which know the file and page they belong to.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shmtrain::data::parquet {

enum class PhysicalType : std::int32_t {
  boolean = 0,
  int32 = 1,
  int64 = 2,
  int96 = 3,
  real = 4,  // FLOAT
  double_ = 5,
  byte_array = 6,
  fixed_len_byte_array = 7,
};

enum class Repetition : std::int32_t { required = 0, optional = 1, repeated = 2 };

enum class Codec : std::int32_t {
  uncompressed = 0,
  snappy = 1,
  gzip = 2,
  lzo = 3,
  brotli = 4,
  lz4 = 5,
  zstd = 6,
  lz4_raw = 7,
};

enum class Encoding : std::int32_t {
  plain = 0,
  plain_dictionary = 2,
  rle = 3,
  bit_packed = 4,
  delta_binary_packed = 5,
  delta_length_byte_array = 6,
  delta_byte_array = 7,
  rle_dictionary = 8,
  byte_stream_split = 9,
};

enum class PageType : std::int32_t { data = 0, index = 1, dictionary = 2, data_v2 = 3 };

// ConvertedType and LogicalType folded into what changes the JSON value of a column.
enum class Annotation {
  none,
  string,  // UTF8, ENUM, JSON, BSON, STRING
  list,
  map,
  decimal,
  integer,  // INT_* / UINT_* / IntType: see bit_width, is_signed
  float16,
  other,  // dates, times, timestamps, UUID, ...: the stored value as it is
};

struct SchemaElement {
  std::string name;
  std::optional<PhysicalType> type;
  std::int32_t type_length = 0;
  std::optional<Repetition> repetition;
  std::optional<std::int32_t> num_children;
  Annotation annotation = Annotation::none;
  std::int32_t scale = 0;      // DECIMAL
  std::int32_t bit_width = 0;  // integer annotations
  bool is_signed = true;
};

struct ColumnMetaData {
  PhysicalType type = PhysicalType::boolean;
  std::vector<std::string> path;
  Codec codec = Codec::uncompressed;
  std::int64_t num_values = 0;
  std::int64_t total_compressed_size = 0;
  std::int64_t data_page_offset = 0;
  std::optional<std::int64_t> dictionary_page_offset;
};

struct RowGroup {
  std::vector<ColumnMetaData> columns;
  std::int64_t num_rows = 0;
};

struct KeyValue {
  std::string key;
  std::optional<std::string> value;
};

struct FileMetaData {
  std::vector<SchemaElement> schema;
  std::int64_t num_rows = 0;
  std::vector<RowGroup> row_groups;
  std::vector<KeyValue> key_value_metadata;
};

struct DataPageHeader {
  std::int32_t num_values = 0;
  Encoding encoding = Encoding::plain;
  Encoding definition_level_encoding = Encoding::rle;
  Encoding repetition_level_encoding = Encoding::rle;
};

struct DataPageHeaderV2 {
  std::int32_t num_values = 0;
  std::int32_t num_nulls = 0;
  std::int32_t num_rows = 0;
  Encoding encoding = Encoding::plain;
  std::int32_t definition_levels_byte_length = 0;
  std::int32_t repetition_levels_byte_length = 0;
  bool is_compressed = true;
};

struct DictionaryPageHeader {
  std::int32_t num_values = 0;
  Encoding encoding = Encoding::plain;
};

struct PageHeader {
  PageType type = PageType::data;
  std::int32_t uncompressed_page_size = 0;
  std::int32_t compressed_page_size = 0;
  std::optional<DataPageHeader> data;
  std::optional<DataPageHeaderV2> data_v2;
  std::optional<DictionaryPageHeader> dictionary;
};

// The footer's metadata (the bytes between the data and the length before the closing PAR1).
FileMetaData decode_file_metadata(std::span<const std::byte> bytes);

// The page header at the start of `bytes`; `header_size` gets its length in bytes.
PageHeader decode_page_header(std::span<const std::byte> bytes, std::size_t& header_size);

std::string_view codec_name(Codec codec);
std::string_view encoding_name(Encoding encoding);

}  // namespace shmtrain::data::parquet
