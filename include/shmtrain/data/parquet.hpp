#pragma once
// Apache Parquet files read into JSON rows: the Hugging Face Hub's dataset files (written by
// pyarrow) and files users write with pandas, pyarrow or the Rust writers. Debian packages no
// C++ Parquet library, so this is a reader of its own, strict about what the file claims.
//
// Read: the footer's Thrift compact FileMetaData; codecs UNCOMPRESSED, SNAPPY, GZIP, ZSTD;
// data pages v1 and v2 and one dictionary page per column chunk; encodings PLAIN,
// PLAIN_DICTIONARY / RLE_DICTIONARY, RLE (levels, booleans), DELTA_BINARY_PACKED,
// DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT; nested columns through their
// repetition and definition levels (LIST groups of the 3-level and legacy 2-level forms, MAP
// groups as lists of {key, value}, structs). Values become JSON: struct -> object, list ->
// array, null -> null, INT32/INT64 -> integer (unsigned when annotated so), DECIMAL ->
// number, FLOAT/DOUBLE/FLOAT16 -> number, BOOLEAN -> bool, BYTE_ARRAY and
// FIXED_LEN_BYTE_ARRAY -> string (which must be UTF-8). DATE/TIME/TIMESTAMP stay the
// integers the file stores.
//
// Refused, each with an InputError naming the file and the column: INT96 (legacy
// timestamps), other codecs (LZO, BROTLI, LZ4, LZ4_RAW), encrypted files, column data in
// other files, BIT_PACKED levels, binary values that are not UTF-8 text.
//
// Every length, offset and count the file declares is checked against the file and against
// the page it belongs to before it is used. What the rows may take in memory is bounded by
// the file's size: at most 64 MiB + 256 x (file size) of decoded values (32 bytes a value plus
// its text), and no page may declare more than that or 1 GiB uncompressed. A damaged or
// crafted file is one InputError "FILE: column PATH: row group R: page P: what is wrong".
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "shmtrain/data/json_lines.hpp"

namespace shmtrain::data {

struct ParquetRows {
  // source: the path; one row per Parquet row, its `line` the 1-based row number, its object's
  // keys the top-level columns in schema order.
  JsonLines rows;
  // The `huggingface` key-value metadata's info.features (the `datasets` Features of the
  // file), or null when the file has none.
  nlohmann::ordered_json features;
};

// The whole file as JSON rows. InputError naming the path and `what` it should be when the
// file is missing or unreadable, and naming the path and the damage when it is not a Parquet
// file this reader can read. A file of zero rows gives no rows (not an error).
ParquetRows read_parquet(const std::filesystem::path& path, std::string_view what);

// The same over bytes in memory; `source` names them in messages.
ParquetRows parse_parquet(std::span<const std::byte> bytes, const std::string& source);

// The ClassLabel names of top-level `column`: of a ClassLabel feature, or of the feature of a
// Sequence / List of ClassLabel (NER's ner_tags). Empty when the file has no features or the
// column is not a ClassLabel. InputError naming the file when the names are not strings.
std::vector<std::string> parquet_class_names(const ParquetRows& file, std::string_view column);

}  // namespace shmtrain::data
