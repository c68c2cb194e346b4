#include "parquet_writer.hpp"

#include <cstring>
#include <numeric>

namespace shmtrain::testing::parquet {
namespace {

// The Thrift compact protocol, written.
class Thrift {
 public:
  std::string out;

  void begin() { last_.push_back(0); }
  void end() {
    out += '\0';
    last_.pop_back();
  }
  void i32(std::int16_t id, std::int64_t value) {
    header(id, 5);
    varint(zigzag(value));
  }
  void i64(std::int16_t id, std::int64_t value) {
    header(id, 6);
    varint(zigzag(value));
  }
  void boolean(std::int16_t id, bool value) { header(id, value ? 1 : 2); }
  void binary(std::int16_t id, const std::string& value) {
    header(id, 8);
    element(value);
  }
  void element(const std::string& value) {
    varint(value.size());
    out += value;
  }
  void begin_struct(std::int16_t id) {
    header(id, 12);
    begin();
  }
  void list(std::int16_t id, int element_type, std::size_t size) {
    header(id, 9);
    if (size < 15) {
      out += static_cast<char>((size << 4) | element_type);
    } else {
      out += static_cast<char>(0xF0 | element_type);
      varint(size);
    }
  }

 private:
  static std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
  }
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      out += static_cast<char>((v & 0x7F) | 0x80);
      v >>= 7;
    }
    out += static_cast<char>(v);
  }
  void header(std::int16_t id, int type) {
    const int delta = id - last_.back();
    if (delta > 0 && delta < 16) {
      out += static_cast<char>((delta << 4) | type);
    } else {
      out += static_cast<char>(type);
      varint(zigzag(id));
    }
    last_.back() = id;
  }
  std::vector<std::int16_t> last_;
};

std::string page_header(const Page& page) {
  Thrift t;
  t.begin();
  t.i32(1, page.type);
  t.i32(2, page.uncompressed_size.value_or(static_cast<std::int32_t>(page.body.size())));
  t.i32(3, page.compressed_size.value_or(static_cast<std::int32_t>(page.body.size())));
  if (page.type == 0) {
    t.begin_struct(5);
    t.i32(1, page.num_values);
    t.i32(2, page.encoding);
    t.i32(3, page.definition_level_encoding);
    t.i32(4, page.repetition_level_encoding);
    t.end();
  } else if (page.type == 2) {
    t.begin_struct(7);
    t.i32(1, page.num_values);
    t.i32(2, page.encoding);
    t.end();
  } else if (page.type == 3) {
    t.begin_struct(8);
    t.i32(1, page.num_values);
    t.i32(2, page.v2_num_nulls);
    t.i32(3, page.v2_num_rows);
    t.i32(4, page.encoding);
    t.i32(5, page.v2_definition_bytes);
    t.i32(6, page.v2_repetition_bytes);
    t.end();
  }
  t.end();
  return t.out;
}

}  // namespace

std::string write_file(const File& file) {
  std::string out = "PAR1";
  struct Placed {
    std::int64_t offset, size;
  };
  std::vector<std::vector<Placed>> placed;
  for (const RowGroup& group : file.row_groups) {
    auto& row = placed.emplace_back();
    for (const Chunk& chunk : group.columns) {
      const auto offset = static_cast<std::int64_t>(out.size());
      for (const Page& page : chunk.pages) out += page_header(page) + page.body;
      row.push_back({offset, static_cast<std::int64_t>(out.size()) - offset});
    }
  }
  Thrift t;
  t.begin();
  t.i32(1, 1);
  t.list(2, 12, file.schema.size());
  for (const Element& e : file.schema) {
    t.begin();
    if (e.type) t.i32(1, *e.type);
    if (e.type_length) t.i32(2, *e.type_length);
    if (e.repetition) t.i32(3, *e.repetition);
    t.binary(4, e.name);
    if (e.num_children) t.i32(5, *e.num_children);
    if (e.converted_type) t.i32(6, *e.converted_type);
    if (e.scale) t.i32(7, *e.scale);
    t.end();
  }
  std::int64_t rows = 0;
  for (const RowGroup& group : file.row_groups) rows += group.num_rows;
  t.i64(3, file.num_rows.value_or(rows));
  t.list(4, 12, file.row_groups.size());
  for (std::size_t g = 0; g < file.row_groups.size(); ++g) {
    const RowGroup& group = file.row_groups[g];
    t.begin();
    t.list(1, 12, group.columns.size());
    for (std::size_t c = 0; c < group.columns.size(); ++c) {
      const Chunk& chunk = group.columns[c];
      t.begin();
      t.i64(2, placed[g][c].offset);
      t.begin_struct(3);
      t.i32(1, chunk.type);
      t.list(2, 5, 1);
      t.out += '\0';  // one encoding: PLAIN (zigzag 0)
      t.list(3, 8, chunk.path.size());
      for (const std::string& part : chunk.path) t.element(part);
      t.i32(4, chunk.codec);
      t.i64(5, chunk.num_values);
      t.i64(6, chunk.total_compressed_size.value_or(placed[g][c].size));
      t.i64(7, chunk.total_compressed_size.value_or(placed[g][c].size));
      t.i64(9, chunk.data_page_offset.value_or(placed[g][c].offset));
      t.end();
      t.end();
    }
    t.i64(2, 0);
    t.i64(3, group.num_rows);
    t.end();
  }
  if (!file.key_values.empty()) {
    t.list(5, 12, file.key_values.size());
    for (const auto& [key, value] : file.key_values) {
      t.begin();
      t.binary(1, key);
      t.binary(2, value);
      t.end();
    }
  }
  t.out += file.extra_footer_fields;
  t.end();
  out += t.out;
  const auto footer = static_cast<std::uint32_t>(t.out.size());
  char length[4];
  std::memcpy(length, &footer, 4);
  out.append(length, 4);
  return out + "PAR1";
}

std::string plain_int32(const std::vector<std::int32_t>& values) {
  std::string out(values.size() * 4, '\0');
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

std::string plain_strings(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) {
    const auto size = static_cast<std::uint32_t>(v.size());
    char length[4];
    std::memcpy(length, &size, 4);
    out.append(length, 4);
    out += v;
  }
  return out;
}

std::string rle(const std::vector<std::uint32_t>& values, int bit_width) {
  std::string out;
  const int bytes = (bit_width + 7) / 8;
  for (std::size_t i = 0; i < values.size();) {
    std::size_t run = 1;
    while (i + run < values.size() && values[i + run] == values[i] && run < 60) ++run;
    out += static_cast<char>(run << 1);
    for (int b = 0; b < bytes; ++b) out += static_cast<char>((values[i] >> (8 * b)) & 0xFF);
    i += run;
  }
  return out;
}

std::string v1_levels(const std::vector<std::uint32_t>& levels, int bit_width) {
  const std::string runs = rle(levels, bit_width);
  const auto size = static_cast<std::uint32_t>(runs.size());
  char length[4];
  std::memcpy(length, &size, 4);
  return std::string(length, 4) + runs;
}

}  // namespace shmtrain::testing::parquet
