#include "column_chunk.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "parquet_error.hpp"
#include "rle_hybrid.hpp"
#include "shmtrain/common/error.hpp"
#include "value_decoders.hpp"

namespace shmtrain::data::parquet {
namespace {

bool encoding_fits(Encoding encoding, PhysicalType type) {
  switch (encoding) {
    case Encoding::plain:
    case Encoding::plain_dictionary:
    case Encoding::rle_dictionary:
      return true;
    case Encoding::rle:
      return type == PhysicalType::boolean;
    case Encoding::delta_binary_packed:
      return type == PhysicalType::int32 || type == PhysicalType::int64;
    case Encoding::delta_length_byte_array:
      return type == PhysicalType::byte_array;
    case Encoding::delta_byte_array:
      return type == PhysicalType::byte_array || type == PhysicalType::fixed_len_byte_array;
    case Encoding::byte_stream_split:
      return type != PhysicalType::boolean && type != PhysicalType::byte_array;
    case Encoding::bit_packed:
      return false;
  }
  return false;
}

class ChunkReader {
 public:
  ChunkReader(const ColumnMetaData& meta, const SchemaNode& leaf, DecodeBudget& budget, PageBuffer& buffer)
      : meta_(meta), leaf_(leaf), budget_(budget), buffer_(buffer) {}

  LeafData read(std::span<const std::byte> chunk) {
    if (meta_.num_values < 0) fail_input("a column chunk of {} values", meta_.num_values);
    const auto expected = static_cast<std::uint64_t>(meta_.num_values);
    std::size_t offset = 0;
    int page_number = 0;
    while (out_.entries < expected) {
      if (offset >= chunk.size()) {
        fail_input("the column chunk's {} bytes end after {} of its {} values", chunk.size(), out_.entries,
                   expected);
      }
      ++page_number;
      in_context(fmt::format("page {}", page_number), [&] {
        std::size_t header_size = 0;
        const PageHeader header =
            in_context("page header", [&] { return decode_page_header(chunk.subspan(offset), header_size); });
        offset += header_size;
        const auto compressed = static_cast<std::size_t>(header.compressed_page_size);
        if (compressed > chunk.size() - offset) {
          fail_input("{} bytes of page data where the column chunk has {} left", compressed,
                     chunk.size() - offset);
        }
        const std::size_t limit = std::min(kMaxPageSize, budget_.total());
        if (static_cast<std::size_t>(header.uncompressed_page_size) > limit) {
          fail_input("the page declares {} bytes uncompressed, more than the {} a page of this file may hold",
                     header.uncompressed_page_size, limit);
        }
        page(header, chunk.subspan(offset, compressed), expected - out_.entries, page_number);
        offset += compressed;
      });
    }
    return std::move(out_);
  }

 private:
  void page(const PageHeader& header, std::span<const std::byte> body, std::uint64_t values_left,
            int number) {
    switch (header.type) {
      case PageType::dictionary:
        if (number != 1) fail_input("a dictionary page after the first page of the column chunk");
        dictionary_page(header, body);
        return;
      case PageType::data:
      case PageType::data_v2: {
        const std::int32_t count = header.data ? header.data->num_values : header.data_v2->num_values;
        if (count < 0 || static_cast<std::uint64_t>(count) > values_left) {
          fail_input("{} values where the column chunk has {} left", count, values_left);
        }
        budget_.charge(static_cast<std::size_t>(count), kValueCost);
        if (header.data) {
          data_page_v1(header, body, static_cast<std::size_t>(count));
        } else {
          data_page_v2(header, body, static_cast<std::size_t>(count));
        }
        out_.entries += static_cast<std::size_t>(count);
        return;
      }
      case PageType::index:
        return;
    }
  }

  void dictionary_page(const PageHeader& header, std::span<const std::byte> body) {
    const DictionaryPageHeader& h = *header.dictionary;
    if (h.encoding != Encoding::plain && h.encoding != Encoding::plain_dictionary) {
      fail_input("a dictionary page encoded {} (expected PLAIN)", encoding_name(h.encoding));
    }
    if (h.num_values < 0) fail_input("a dictionary of {} values", h.num_values);
    budget_.charge(static_cast<std::size_t>(h.num_values), kValueCost);
    const auto data =
        decompress(meta_.codec, body, static_cast<std::size_t>(header.uncompressed_page_size), buffer_);
    dictionary_.emplace();
    ValueSink sink(leaf_, budget_, *dictionary_);
    in_context("dictionary", [&] { decode_plain(data, static_cast<std::size_t>(h.num_values), sink); });
  }

  void data_page_v1(const PageHeader& header, std::span<const std::byte> body, std::size_t count) {
    const DataPageHeader& h = *header.data;
    const auto page =
        decompress(meta_.codec, body, static_cast<std::size_t>(header.uncompressed_page_size), buffer_);
    std::size_t pos = 0;
    const auto levels = [&](int max_level, Encoding encoding, std::vector<std::uint8_t>& out,
                            std::string_view what) {
      if (max_level == 0) return;
      if (encoding != Encoding::rle) {
        fail_input("{} levels encoded {} (shmtrain reads RLE levels)", what, encoding_name(encoding));
      }
      if (page.size() - pos < 4) fail_input("the page ends before its {} levels' length", what);
      std::uint32_t length;
      std::memcpy(&length, page.data() + pos, 4);
      pos += 4;
      if (length > page.size() - pos) {
        fail_input("{} levels of {} bytes in a page of {} bytes left", what, length, page.size() - pos);
      }
      decode_levels(page.subspan(pos, length), count, max_level, out, what);
      pos += length;
    };
    levels(leaf_.repetition_level, h.repetition_level_encoding, out_.repetition, "repetition");
    levels(leaf_.definition_level, h.definition_level_encoding, out_.definition, "definition");
    values(h.encoding, page.subspan(pos), count);
  }

  void data_page_v2(const PageHeader& header, std::span<const std::byte> body, std::size_t count) {
    const DataPageHeaderV2& h = *header.data_v2;
    const std::int64_t rep_bytes = h.repetition_levels_byte_length,
                       def_bytes = h.definition_levels_byte_length;
    const auto declared = static_cast<std::int64_t>(header.uncompressed_page_size);
    if (rep_bytes < 0 || def_bytes < 0 || rep_bytes + def_bytes > static_cast<std::int64_t>(body.size()) ||
        rep_bytes + def_bytes > declared) {
      fail_input("levels of {} + {} bytes in a page of {} bytes ({} uncompressed)", rep_bytes, def_bytes,
                 body.size(), declared);
    }
    const auto rep = static_cast<std::size_t>(rep_bytes), def = static_cast<std::size_t>(def_bytes);
    if (leaf_.repetition_level > 0) {
      decode_levels(body.first(rep), count, leaf_.repetition_level, out_.repetition, "repetition");
    }
    if (leaf_.definition_level > 0) {
      decode_levels(body.subspan(rep, def), count, leaf_.definition_level, out_.definition, "definition");
    }
    const Codec codec = h.is_compressed ? meta_.codec : Codec::uncompressed;
    const auto data =
        decompress(codec, body.subspan(rep + def), static_cast<std::size_t>(declared) - rep - def, buffer_);
    values(h.encoding, data, count);
  }

  void decode_levels(std::span<const std::byte> data, std::size_t count, int max_level,
                     std::vector<std::uint8_t>& out, std::string_view what) {
    const std::size_t old = out.size();
    out.resize(old + count);
    decode_rle_hybrid(data, bit_width_of(static_cast<std::uint32_t>(max_level)), count,
                      static_cast<std::uint32_t>(max_level), fmt::format("{} level", what), out.data() + old);
  }

  // The page's non-null values: as many as its definition levels at the column's maximum.
  void values(Encoding encoding, std::span<const std::byte> data, std::size_t count) {
    std::size_t present = count;
    if (leaf_.definition_level > 0) {
      const auto levels = std::span(out_.definition).last(count);
      present = static_cast<std::size_t>(
          std::count(levels.begin(), levels.end(), static_cast<std::uint8_t>(leaf_.definition_level)));
    }
    if (!encoding_fits(encoding, leaf_.type)) {
      fail_input("values encoded {}, which is not an encoding of this column's type",
                 encoding_name(encoding));
    }
    if (present == 0) return;
    ValueSink sink(leaf_, budget_, out_.values);
    switch (encoding) {
      case Encoding::plain:
        decode_plain(data, present, sink);
        return;
      case Encoding::plain_dictionary:
      case Encoding::rle_dictionary:
        dictionary_values(data, present, sink);
        return;
      case Encoding::rle:
        decode_rle_booleans(data, present, sink);
        return;
      case Encoding::delta_binary_packed:
        decode_delta_binary_packed(data, present, sink);
        return;
      case Encoding::delta_length_byte_array:
        decode_delta_length_byte_array(data, present, sink);
        return;
      case Encoding::delta_byte_array:
        decode_delta_byte_array(data, present, budget_, sink);
        return;
      case Encoding::byte_stream_split:
        decode_byte_stream_split(data, present, sink);
        return;
      case Encoding::bit_packed:
        break;
    }
    fail_input("values encoded {}", encoding_name(encoding));
  }

  void dictionary_values(std::span<const std::byte> data, std::size_t count, ValueSink& sink) {
    if (!dictionary_) fail_input("dictionary-encoded values but the column chunk has no dictionary page");
    if (dictionary_->empty()) fail_input("dictionary-encoded values with an empty dictionary");
    if (data.empty()) fail_input("dictionary indices without their bit width");
    const int width = static_cast<int>(static_cast<std::uint8_t>(data[0]));
    indices_.resize(count);
    decode_rle_hybrid(data.subspan(1), width, count, static_cast<std::uint32_t>(dictionary_->size() - 1),
                      "dictionary index", indices_.data());
    for (const std::uint32_t index : indices_) sink.copy((*dictionary_)[index]);
  }

  const ColumnMetaData& meta_;
  const SchemaNode& leaf_;
  DecodeBudget& budget_;
  PageBuffer& buffer_;
  LeafData out_;
  std::optional<std::vector<Json>> dictionary_;
  std::vector<std::uint32_t> indices_;
};

}  // namespace

LeafData read_column_chunk(std::span<const std::byte> file, std::size_t data_end, const ColumnMetaData& meta,
                           const SchemaNode& leaf, DecodeBudget& budget, PageBuffer& buffer) {
  // A chunk of no values has nothing to read; some writers leave its offsets 0.
  if (meta.num_values == 0) return {};
  std::int64_t start = meta.data_page_offset;
  if (meta.dictionary_page_offset && *meta.dictionary_page_offset > 0 &&
      *meta.dictionary_page_offset < start) {
    start = *meta.dictionary_page_offset;
  }
  const std::int64_t size = meta.total_compressed_size;
  if (start < 4 || static_cast<std::uint64_t>(start) > data_end || size < 0 ||
      static_cast<std::uint64_t>(size) > data_end - static_cast<std::uint64_t>(start)) {
    fail_input("the column chunk's {} bytes at byte {} lie outside the file's data (bytes 4 to {})", size,
               start, data_end);
  }
  return ChunkReader(meta, leaf, budget, buffer)
      .read(file.subspan(static_cast<std::size_t>(start), static_cast<std::size_t>(size)));
}

}  // namespace shmtrain::data::parquet
