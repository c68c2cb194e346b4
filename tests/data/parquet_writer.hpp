#pragma once
// A small Parquet writer for the reader's tests: files built field by field, so that a test
// can write what no real writer would (a huge declared size, an index past the dictionary,
// bytes that are not UTF-8, the legacy 2-level lists, INT96). The fixtures of
// tests/fixtures/parquet/ come from an independent writer; these files test the edges.
// Numbers are parquet.thrift's (types, encodings, codecs, converted types).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shmtrain::testing::parquet {

struct Element {  // SchemaElement
  std::string name{};
  std::optional<int> type{};        // 0 BOOLEAN 1 INT32 2 INT64 3 INT96 4 FLOAT 5 DOUBLE 6 BYTE_ARRAY 7 FIXED
  std::optional<int> repetition{};  // 0 required 1 optional 2 repeated
  std::optional<int> num_children{};
  std::optional<int> converted_type{};  // 0 UTF8 1 MAP 2 MAP_KEY_VALUE 3 LIST 5 DECIMAL ...
  std::optional<int> scale{};
  std::optional<int> type_length{};
};

struct Page {
  int type = 0;        // 0 data v1, 2 dictionary, 3 data v2
  std::string body{};  // as stored (levels and values; compressed when the chunk's codec says)
  std::int32_t num_values = 0;
  int encoding = 0;
  std::optional<std::int32_t> uncompressed_size{};  // default: body.size()
  std::optional<std::int32_t> compressed_size{};    // default: body.size()
  int definition_level_encoding = 3;
  int repetition_level_encoding = 3;
  std::int32_t v2_definition_bytes = 0, v2_repetition_bytes = 0, v2_num_nulls = 0, v2_num_rows = 0;
};

struct Chunk {
  std::vector<std::string> path{};
  int type = 1;
  int codec = 0;
  std::int64_t num_values = 0;
  std::vector<Page> pages{};
  std::optional<std::int64_t> total_compressed_size{};  // default: the pages' bytes
  std::optional<std::int64_t> data_page_offset{};       // default: where the pages are
};

struct RowGroup {
  std::int64_t num_rows = 0;
  std::vector<Chunk> columns{};
};

struct File {
  std::vector<Element> schema{};  // the root first, depth first
  std::vector<RowGroup> row_groups{};
  std::optional<std::int64_t> num_rows{};  // default: the row groups' sum
  std::vector<std::pair<std::string, std::string>> key_values{};
  // Raw bytes written before the FileMetaData's stop byte: fields a reader does not know
  // (headers in the long form: type byte, then the zigzag field id).
  std::string extra_footer_fields{};
};

std::string write_file(const File& file);

// Value and level encodings.
std::string plain_int32(const std::vector<std::int32_t>& values);
std::string plain_strings(const std::vector<std::string>& values);
// The RLE / bit-packing hybrid as runs of repeated values only.
std::string rle(const std::vector<std::uint32_t>& values, int bit_width);
// A v1 page's levels: a 4-byte length, then rle().
std::string v1_levels(const std::vector<std::uint32_t>& levels, int bit_width);

}  // namespace shmtrain::testing::parquet
