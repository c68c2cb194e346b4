// A page's PageHeader (parquet.thrift), read before each page of a column chunk.
#include "parquet_enums.hpp"
#include "parquet_metadata.hpp"
#include "thrift_compact.hpp"

namespace shmtrain::data::parquet {

using T = CompactType;

PageHeader decode_page_header(std::span<const std::byte> bytes, std::size_t& header_size) {
  CompactReader in(bytes);
  PageHeader page;
  unsigned seen = 0;
  in.read_struct([&](std::int16_t id, T type) {
    switch (id) {
      case 1:
        page.type = enum_value<PageType>(in.read_i32(type), 0, 3, "page type");
        break;
      case 2:
        page.uncompressed_page_size = in.read_i32(type);
        break;
      case 3:
        page.compressed_page_size = in.read_i32(type);
        break;
      case 5: {
        in.expect(type, T::structure);
        DataPageHeader& data = page.data.emplace();
        unsigned fields = 0;
        in.read_struct([&](std::int16_t field, T t) {
          if (field == 1) data.num_values = in.read_i32(t);
          if (field == 2) data.encoding = encoding_value(in.read_i32(t));
          if (field == 3) data.definition_level_encoding = encoding_value(in.read_i32(t));
          if (field == 4) data.repetition_level_encoding = encoding_value(in.read_i32(t));
          if (field < 1 || field > 4) return false;
          fields |= 1u << field;
          return true;
        });
        if (fields != 0b11110) fail_input("a data page header without num_values or its encodings");
        break;
      }
      case 7: {
        in.expect(type, T::structure);
        DictionaryPageHeader& dictionary = page.dictionary.emplace();
        unsigned fields = 0;
        in.read_struct([&](std::int16_t field, T t) {
          if (field == 1) dictionary.num_values = in.read_i32(t);
          if (field == 2) dictionary.encoding = encoding_value(in.read_i32(t));
          if (field < 1 || field > 2) return false;
          fields |= 1u << field;
          return true;
        });
        if (fields != 0b110) fail_input("a dictionary page header without num_values or encoding");
        break;
      }
      case 8: {
        in.expect(type, T::structure);
        DataPageHeaderV2& data = page.data_v2.emplace();
        unsigned fields = 0;
        in.read_struct([&](std::int16_t field, T t) {
          switch (field) {
            case 1:
              data.num_values = in.read_i32(t);
              break;
            case 2:
              data.num_nulls = in.read_i32(t);
              break;
            case 3:
              data.num_rows = in.read_i32(t);
              break;
            case 4:
              data.encoding = encoding_value(in.read_i32(t));
              break;
            case 5:
              data.definition_levels_byte_length = in.read_i32(t);
              break;
            case 6:
              data.repetition_levels_byte_length = in.read_i32(t);
              break;
            case 7:
              data.is_compressed = in.read_bool(t);
              break;
            default:
              return false;
          }
          fields |= 1u << field;
          return true;
        });
        if ((fields & 0b1111110) != 0b1111110)
          fail_input("a data page v2 header without one of its required fields");
        break;
      }
      default:
        return false;
    }
    seen |= 1u << id;
    return true;
  });
  if ((seen & 0b1110) != 0b1110) fail_input("a page header without its type or sizes");
  if (page.uncompressed_page_size < 0 || page.compressed_page_size < 0) {
    fail_input("a page header with a negative size ({} compressed, {} uncompressed)",
               page.compressed_page_size, page.uncompressed_page_size);
  }
  const bool has_header =
      (page.type == PageType::data && page.data) || (page.type == PageType::data_v2 && page.data_v2) ||
      (page.type == PageType::dictionary && page.dictionary) || page.type == PageType::index;
  if (!has_header) fail_input("a page header without the header of its page type");
  header_size = in.position();
  return page;
}

}  // namespace shmtrain::data::parquet
