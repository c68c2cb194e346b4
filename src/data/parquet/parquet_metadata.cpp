#include "parquet_metadata.hpp"

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "parquet_enums.hpp"
#include "thrift_compact.hpp"

namespace shmtrain::data::parquet {
namespace {

using T = CompactType;

// The integer struct of LogicalType.INTEGER / DECIMAL.
void read_logical_type(CompactReader& in, SchemaElement& element) {
  in.read_struct([&](std::int16_t id, T type) {
    in.expect(type, T::structure);
    switch (id) {
      case 1:   // STRING
      case 4:   // ENUM
      case 12:  // JSON
        element.annotation = Annotation::string;
        return false;
      case 2:
        element.annotation = Annotation::map;
        return false;
      case 3:
        element.annotation = Annotation::list;
        return false;
      case 5:
        element.annotation = Annotation::decimal;
        in.read_struct([&](std::int16_t field, T t) {
          if (field == 1) element.scale = in.read_i32(t);
          return field == 1;
        });
        return true;
      case 10:
        element.annotation = Annotation::integer;
        in.read_struct([&](std::int16_t field, T t) {
          if (field == 1) element.bit_width = in.read_i8(t);
          if (field == 2) element.is_signed = in.read_bool(t);
          return field == 1 || field == 2;
        });
        return true;
      case 11:  // UNKNOWN: always null
        element.annotation = Annotation::none;
        return false;
      case 15:
        element.annotation = Annotation::float16;
        return false;
      default:
        element.annotation = Annotation::other;
        return false;
    }
  });
}

void apply_converted_type(std::int32_t converted, SchemaElement& element) {
  if (converted == 0 || converted == 4 || converted == 19) {
    element.annotation = Annotation::string;
  } else if (converted == 1) {
    element.annotation = Annotation::map;
  } else if (converted == 2) {
    // MAP_KEY_VALUE marks the repeated group inside a MAP (Impala, old parquet-mr): the group is
    // the map's entry, an object, and the MAP above it already makes the list.
    element.annotation = Annotation::none;
  } else if (converted == 3) {
    element.annotation = Annotation::list;
  } else if (converted == 5) {
    element.annotation = Annotation::decimal;
  } else if (converted >= 11 && converted <= 18) {
    element.annotation = Annotation::integer;
    element.is_signed = converted >= 15;
    element.bit_width = 8 << ((converted - 11) % 4);
  } else {
    element.annotation = Annotation::other;
  }
}

SchemaElement read_schema_element(CompactReader& in) {
  SchemaElement element;
  bool has_name = false, has_logical_type = false;
  std::optional<std::int32_t> converted;
  std::int32_t legacy_scale = 0;
  in.read_struct([&](std::int16_t id, T type) {
    switch (id) {
      case 1:
        element.type = enum_value<PhysicalType>(in.read_i32(type), 0, 7, "physical type");
        return true;
      case 2:
        element.type_length = in.read_i32(type);
        return true;
      case 3:
        element.repetition = enum_value<Repetition>(in.read_i32(type), 0, 2, "repetition type");
        return true;
      case 4:
        element.name = std::string(in.read_binary(type));
        has_name = true;
        return true;
      case 5:
        element.num_children = in.read_i32(type);
        return true;
      case 6:
        converted = in.read_i32(type);
        return true;
      case 7:
        legacy_scale = in.read_i32(type);
        return true;
      case 10:
        in.expect(type, T::structure);
        read_logical_type(in, element);
        has_logical_type = true;
        return true;
      default:
        return false;
    }
  });
  if (!has_name) fail_input("a schema element without a name");
  // The logical type, when a writer gives one, says what the converted type only approximates.
  if (!has_logical_type && converted) apply_converted_type(*converted, element);
  if (!has_logical_type && element.annotation == Annotation::decimal) element.scale = legacy_scale;
  return element;
}

ColumnMetaData read_column_metadata(CompactReader& in) {
  ColumnMetaData meta;
  unsigned seen = 0;
  in.read_struct([&](std::int16_t id, T type) {
    switch (id) {
      case 1:
        meta.type = enum_value<PhysicalType>(in.read_i32(type), 0, 7, "physical type");
        break;
      case 3:
        in.read_binary_list(type, [&](std::string_view part) { meta.path.emplace_back(part); });
        break;
      case 4:
        meta.codec = enum_value<Codec>(in.read_i32(type), 0, 7, "compression codec");
        break;
      case 5:
        meta.num_values = in.read_i64(type);
        break;
      case 7:
        meta.total_compressed_size = in.read_i64(type);
        break;
      case 9:
        meta.data_page_offset = in.read_i64(type);
        break;
      case 11:
        meta.dictionary_page_offset = in.read_i64(type);
        break;
      default:
        return false;
    }
    seen |= 1u << id;
    return true;
  });
  for (const auto& [id, name] : {std::pair{1, "type"},
                                 {3, "path_in_schema"},
                                 {4, "codec"},
                                 {5, "num_values"},
                                 {7, "total_compressed_size"},
                                 {9, "data_page_offset"}}) {
    if ((seen & (1u << id)) == 0) fail_input("column metadata without {}", name);
  }
  return meta;
}

ColumnMetaData read_column_chunk(CompactReader& in) {
  std::optional<ColumnMetaData> meta;
  in.read_struct([&](std::int16_t id, T type) {
    switch (id) {
      case 1:
        fail_input("column data in another file ({}) is not supported", in.read_binary(type));
      case 3:
        in.expect(type, T::structure);
        meta = read_column_metadata(in);
        return true;
      case 8:
      case 9:
        fail_input("encrypted columns are not supported");
      default:
        return false;
    }
  });
  if (!meta) fail_input("a column chunk without its metadata");
  return *meta;
}

RowGroup read_row_group(CompactReader& in) {
  RowGroup group;
  bool has_rows = false;
  in.read_struct([&](std::int16_t id, T type) {
    if (id == 1) {
      in.read_struct_list(type, [&](std::size_t) { group.columns.push_back(read_column_chunk(in)); });
      return true;
    }
    if (id == 3) {
      group.num_rows = in.read_i64(type);
      has_rows = true;
      return true;
    }
    return false;
  });
  if (!has_rows) fail_input("a row group without num_rows");
  return group;
}

}  // namespace

FileMetaData decode_file_metadata(std::span<const std::byte> bytes) {
  CompactReader in(bytes);
  FileMetaData meta;
  bool has_schema = false, has_rows = false, has_groups = false;
  in.read_struct([&](std::int16_t id, T type) {
    switch (id) {
      case 2:
        in.read_struct_list(type, [&](std::size_t) { meta.schema.push_back(read_schema_element(in)); });
        has_schema = true;
        return true;
      case 3:
        meta.num_rows = in.read_i64(type);
        has_rows = true;
        return true;
      case 4:
        in.read_struct_list(type, [&](std::size_t) { meta.row_groups.push_back(read_row_group(in)); });
        has_groups = true;
        return true;
      case 5:
        in.read_struct_list(type, [&](std::size_t) {
          KeyValue& kv = meta.key_value_metadata.emplace_back();
          bool has_key = false;
          in.read_struct([&](std::int16_t field, T t) {
            if (field == 1) {
              kv.key = std::string(in.read_binary(t));
              has_key = true;
            } else if (field == 2) {
              kv.value = std::string(in.read_binary(t));
            }
            return field == 1 || field == 2;
          });
          if (!has_key) fail_input("a key-value pair without a key");
        });
        return true;
      case 8:
        fail_input("encrypted files are not supported");
      default:
        return false;
    }
  });
  if (!has_schema) fail_input("no schema");
  if (!has_rows) fail_input("no num_rows");
  if (!has_groups) fail_input("no row_groups");
  return meta;
}

}  // namespace shmtrain::data::parquet
