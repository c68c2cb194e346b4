// The reader's top: the file's frame (PAR1 ... footer, footer length, PAR1), the footer's
// metadata checked against the schema, each row group's columns decoded and assembled into
// rows, and the `datasets` features from the footer's key-value metadata.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "column_assembly.hpp"
#include "column_chunk.hpp"
#include "parquet_error.hpp"
#include "parquet_metadata.hpp"
#include "schema.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/data/parquet.hpp"
#include "shmtrain/io/json_error.hpp"
#include "shmtrain/io/json_nesting.hpp"
#include "shmtrain/io/mapped_file.hpp"

namespace shmtrain::data {
namespace {

using parquet::Json;

constexpr std::size_t kMagicSize = 4;
constexpr std::size_t kFrameSize = 2 * kMagicSize + 4;  // PAR1, footer length, PAR1

bool has_magic(std::span<const std::byte> bytes, std::size_t at, const char* magic) {
  return std::memcmp(bytes.data() + at, magic, kMagicSize) == 0;
}

// info.features of the `huggingface` metadata, or null.
Json hugging_face_features(const std::vector<parquet::KeyValue>& metadata) {
  for (const parquet::KeyValue& kv : metadata) {
    if (kv.key != "huggingface" || !kv.value) continue;
    return parquet::in_context("key-value metadata 'huggingface'", [&] {
      io::check_json_nesting(*kv.value, "its JSON");
      Json parsed;
      try {
        parsed = Json::parse(*kv.value);
      } catch (const nlohmann::json::exception& e) {
        fail_input("not valid JSON: {}", io::json_error_text(e.what()));
      }
      if (!parsed.is_object()) return Json();
      const auto info = parsed.find("info");
      if (info == parsed.end() || !info->is_object()) return Json();
      const auto features = info->find("features");
      return features == info->end() ? Json() : *features;
    });
  }
  return nullptr;
}

// The column chunks of every row group must be the schema's leaves, in order.
void check_row_group(const parquet::RowGroup& group, const parquet::Schema& schema) {
  if (group.columns.size() != schema.leaves.size()) {
    fail_input("{} column chunks where the schema has {} columns", group.columns.size(),
               schema.leaves.size());
  }
  if (group.num_rows < 0) fail_input("{} rows", group.num_rows);
  for (std::size_t i = 0; i < schema.leaves.size(); ++i) {
    const parquet::SchemaNode& leaf = schema.nodes[schema.leaves[i]];
    const std::string path = fmt::format("{}", fmt::join(group.columns[i].path, "."));
    if (path != leaf.path)
      fail_input("column chunk {} is {} where the schema's column {} is {}", i + 1, path, i + 1, leaf.path);
    if (group.columns[i].type != leaf.type) {
      fail_input("column {}: the column chunk's physical type differs from the schema's", leaf.path);
    }
  }
}

// Rows of a column chunk: its entries that start one (repetition level 0).
std::size_t rows_of(const parquet::LeafData& leaf) {
  if (leaf.repetition.empty()) return leaf.entries;
  return static_cast<std::size_t>(std::count(leaf.repetition.begin(), leaf.repetition.end(), 0));
}

ParquetRows parse(std::span<const std::byte> bytes, const std::string& source) {
  if (bytes.size() < kFrameSize) {
    fail_input("{} bytes is too short to be a Parquet file (expected PAR1 ... PAR1)", bytes.size());
  }
  if (!has_magic(bytes, 0, "PAR1")) fail_input("not a Parquet file (it does not start with PAR1)");
  if (has_magic(bytes, bytes.size() - kMagicSize, "PARE"))
    fail_input("encrypted Parquet files are not supported");
  if (!has_magic(bytes, bytes.size() - kMagicSize, "PAR1")) {
    fail_input("the file does not end with PAR1: it is truncated or not a Parquet file");
  }
  std::uint32_t footer_size;
  std::memcpy(&footer_size, bytes.data() + bytes.size() - 8, 4);
  if (footer_size > bytes.size() - kFrameSize) {
    fail_input(
        "the footer's length, {} bytes, runs past the start of the file ({} bytes): the file is truncated "
        "or damaged",
        footer_size, bytes.size());
  }
  const std::size_t data_end = bytes.size() - 8 - footer_size;
  const parquet::FileMetaData meta = parquet::in_context(
      "footer", [&] { return parquet::decode_file_metadata(bytes.subspan(data_end, footer_size)); });
  const parquet::Schema schema =
      parquet::in_context("schema", [&] { return parquet::build_schema(meta.schema); });

  ParquetRows out;
  out.features = hugging_face_features(meta.key_value_metadata);
  out.rows.source = source;

  // The row groups' counts, not the footer's total, say how many rows there are: some writers
  // leave the total 0, and readers such as pyarrow go by the row groups.
  std::int64_t group_rows = 0;
  for (const parquet::RowGroup& group : meta.row_groups) {
    if (group.num_rows < 0 || group.num_rows > INT64_MAX - group_rows)
      fail_input("a row group of {} rows", group.num_rows);
    group_rows += group.num_rows;
  }
  parquet::DecodeBudget budget(bytes.size());
  budget.charge(static_cast<std::size_t>(group_rows), parquet::kRowCost);
  out.rows.rows.reserve(static_cast<std::size_t>(group_rows));

  parquet::PageBuffer buffer;
  std::size_t row_number = 0;
  for (std::size_t g = 0; g < meta.row_groups.size(); ++g) {
    const parquet::RowGroup& group = meta.row_groups[g];
    const std::string where = fmt::format("row group {}", g + 1);
    parquet::in_context(where, [&] { check_row_group(group, schema); });
    std::vector<parquet::LeafData> leaves(schema.leaves.size());
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      const parquet::SchemaNode& leaf = schema.nodes[schema.leaves[i]];
      parquet::in_context(fmt::format("column {}: {}", leaf.path, where), [&] {
        leaves[i] = parquet::read_column_chunk(bytes, data_end, group.columns[i], leaf, budget, buffer);
        const std::size_t rows = rows_of(leaves[i]);
        if (rows != static_cast<std::size_t>(group.num_rows)) {
          fail_input("{} rows where the row group has {}", rows, group.num_rows);
        }
      });
    }
    parquet::in_context(where, [&] {
      parquet::RowAssembler assembler(schema, leaves);
      for (std::int64_t r = 0; r < group.num_rows; ++r) {
        ++row_number;
        out.rows.rows.push_back(JsonRow{row_number, assembler.next_row(row_number)});
      }
      assembler.finish();
    });
  }
  return out;
}

}  // namespace

ParquetRows parse_parquet(std::span<const std::byte> bytes, const std::string& source) {
  return parquet::in_context(source, [&] { return parse(bytes, source); });
}

ParquetRows read_parquet(const std::filesystem::path& path, std::string_view what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) fail_input("{}: no such file; expected {}", path.string(), what);
  if (std::filesystem::is_directory(status)) fail_input("{}: is a folder; expected {}", path.string(), what);
  const io::MappedFile file(path);
  return parse_parquet(file.bytes(), path.string());
}

std::vector<std::string> parquet_class_names(const ParquetRows& file, std::string_view column) {
  if (!file.features.is_object()) return {};
  const auto it = file.features.find(std::string(column));
  if (it == file.features.end()) return {};
  const Json* feature = &*it;
  // A Sequence or List of ClassLabel names its labels in the list's feature (older
  // `datasets` wrote a list feature as a one-element JSON array).
  if (feature->is_object()) {
    const auto type = feature->find("_type");
    const auto inner = feature->find("feature");
    if (type != feature->end() && inner != feature->end() &&
        (*type == "Sequence" || *type == "List" || *type == "LargeList")) {
      feature = &*inner;
    }
  } else if (feature->is_array() && feature->size() == 1) {
    feature = &(*feature)[0];
  }
  if (!feature->is_object() || feature->value("_type", Json()) != "ClassLabel") return {};
  const auto names = feature->find("names");
  if (names == feature->end()) return {};
  std::vector<std::string> out;
  const auto bad = [&] {
    fail_input("{}: the huggingface metadata's ClassLabel names of column {} are not a list of strings",
               file.rows.source, column);
  };
  if (!names->is_array()) bad();
  for (const Json& name : *names) {
    if (!name.is_string()) bad();
    out.push_back(name.get<std::string>());
  }
  return out;
}

}  // namespace shmtrain::data
