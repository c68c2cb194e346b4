// The Parquet reader: the fixtures of an independent writer (tests/fixtures/parquet/, written
// by tools/parquet_reference/generate.mjs with the Rust parquet crate) read back as the rows
// it was given; the `datasets` features; and damaged or crafted files (parquet_writer.hpp),
// each refused with one InputError naming the file.
#include "shmtrain/data/parquet.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "parquet_writer.hpp"
#include "shmtrain/common/error.hpp"
#include "support/test_support.hpp"

namespace shmtrain::data {
namespace {

namespace pw = testing::parquet;
using Json = nlohmann::ordered_json;
using testing::error_of;

std::filesystem::path fixture(const std::string& name) { return testing::fixtures_dir() / "parquet" / name; }

std::span<const std::byte> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

ParquetRows parse(const std::string& bytes, const std::string& source = "crafted.parquet") {
  return parse_parquet(as_bytes(bytes), source);
}

std::vector<Json> expected_rows(const std::string& name) {
  std::ifstream in(fixture(name + ".expected.jsonl"));
  std::vector<Json> rows;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) rows.push_back(Json::parse(line));
  }
  return rows;
}

::testing::AssertionResult rows_equal(const ParquetRows& actual, const std::vector<Json>& expected) {
  if (actual.rows.rows.size() != expected.size()) {
    return ::testing::AssertionFailure() << actual.rows.rows.size() << " rows, expected " << expected.size();
  }
  int shown = 0;
  auto failure = ::testing::AssertionFailure();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const JsonRow& row = actual.rows.rows[i];
    if (row.line != i + 1)
      return ::testing::AssertionFailure() << "row " << i + 1 << " numbered " << row.line;
    if (row.object != expected[i] && shown++ < 3) {
      failure << "\nrow " << i + 1 << ":\n  read     " << row.object.dump() << "\n  expected "
              << expected[i].dump();
    }
  }
  if (shown > 0) return failure;
  return ::testing::AssertionSuccess();
}

const std::vector<std::string> kFixtures = {
    "scalars_plain_v1_none",  "scalars_dict_v1_snappy", "scalars_dict_v2_zstd", "scalars_plain_v2_gzip",
    "delta_v1_zstd",          "delta_v2_none",          "paged_v1_snappy",      "paged_v2_gzip",
    "nested_nulls_v1",        "nested_nulls_v2",        "squad_v1_snappy",      "glue_mrpc_v1_snappy",
    "ner_sequence_v1_snappy", "ner_list_v2_zstd"};

class ParquetFixture : public ::testing::TestWithParam<std::string> {};

TEST_P(ParquetFixture, ReadsTheRowsTheWriterWasGiven) {
  const std::filesystem::path path = fixture(GetParam() + ".parquet");
  const ParquetRows file = read_parquet(path, "a Parquet file");
  EXPECT_EQ(file.rows.source, path.string());
  EXPECT_TRUE(rows_equal(file, expected_rows(GetParam())));
}

INSTANTIATE_TEST_SUITE_P(Parquet, ParquetFixture, ::testing::ValuesIn(kFixtures),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(Parquet, SquadAnswersAreAStructOfLists) {
  const ParquetRows file = read_parquet(fixture("squad_v1_snappy.parquet"), "SQuAD");
  ASSERT_EQ(file.rows.rows.size(), 4u);
  const Json& first = file.rows.rows[1].object;
  EXPECT_EQ(first["answers"]["text"], Json::parse(R"(["Catholic", "a Catholic character"])"));
  EXPECT_EQ(first["answers"]["answer_start"], Json::parse("[34, 32]"));
  const Json& unanswerable = file.rows.rows[3].object["answers"];
  EXPECT_EQ(unanswerable, Json::parse(R"({"text": [], "answer_start": []})"));
  std::vector<std::string> keys;
  for (const auto& item : first.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{"id", "title", "context", "question", "answers"}));
}

TEST(Parquet, ClassLabelNamesFromTheHuggingFaceMetadata) {
  const ParquetRows glue = read_parquet(fixture("glue_mrpc_v1_snappy.parquet"), "MRPC");
  EXPECT_EQ(parquet_class_names(glue, "label"), (std::vector<std::string>{"not_equivalent", "equivalent"}));
  EXPECT_TRUE(parquet_class_names(glue, "sentence1").empty());
  EXPECT_TRUE(parquet_class_names(glue, "no_such_column").empty());
  EXPECT_EQ(glue.features["idx"]["dtype"], "int32");

  const std::vector<std::string> ner = {"O",     "B-PER", "I-PER",  "B-ORG", "I-ORG",
                                        "B-LOC", "I-LOC", "B-MISC", "I-MISC"};
  for (const char* name : {"ner_sequence_v1_snappy.parquet", "ner_list_v2_zstd.parquet"}) {
    const ParquetRows file = read_parquet(fixture(name), "NER");
    EXPECT_EQ(parquet_class_names(file, "ner_tags"), ner) << name;
    EXPECT_TRUE(parquet_class_names(file, "tokens").empty()) << name;
  }
  const ParquetRows plain = read_parquet(fixture("scalars_plain_v1_none.parquet"), "scalars");
  EXPECT_TRUE(plain.features.is_null());
  EXPECT_TRUE(parquet_class_names(plain, "i32").empty());
}

TEST(Parquet, ClassLabelNamesThatAreNotStringsAreAnError) {
  ParquetRows file;
  file.rows.source = "x.parquet";
  file.features = Json::parse(R"({"label": {"names": ["a", 2], "_type": "ClassLabel"}})");
  EXPECT_EQ(
      error_of([&] { parquet_class_names(file, "label"); }),
      "x.parquet: the huggingface metadata's ClassLabel names of column label are not a list of strings");
  file.features = Json::parse(R"({"tags": [{"names": ["O", "B"], "_type": "ClassLabel"}]})");
  EXPECT_EQ(parquet_class_names(file, "tags"), (std::vector<std::string>{"O", "B"}));
}

TEST(Parquet, MissingFilesAndFoldersNameWhatWasExpected) {
  testing::TempDir dir;
  EXPECT_EQ(error_of([&] { read_parquet(dir / "none.parquet", "the training file"); }),
            (dir / "none.parquet").string() + ": no such file; expected the training file");
  EXPECT_EQ(error_of([&] { read_parquet(dir.path(), "the training file"); }),
            dir.path().string() + ": is a folder; expected the training file");
}

// --- crafted files --------------------------------------------------------------------------

pw::Element root(int children) { return {.name = "schema", .num_children = children}; }
pw::Element int32_column(const std::string& name, int repetition = 0) {
  return {.name = name, .type = 1, .repetition = repetition};
}
pw::Element string_column(const std::string& name, int repetition = 0) {
  return {.name = name, .type = 6, .repetition = repetition, .converted_type = 0};
}

// One required column, one row group, the given pages.
std::string one_column(const pw::Element& column, int type, std::int64_t rows, std::vector<pw::Page> pages,
                       int codec = 0) {
  pw::File file;
  file.schema = {root(1), column};
  file.row_groups = {{rows,
                      {{.path = {column.name},
                        .type = type,
                        .codec = codec,
                        .num_values = rows,
                        .pages = std::move(pages)}}}};
  return pw::write_file(file);
}

TEST(Parquet, CraftedFileOfRequiredInt32) {
  const std::string bytes =
      one_column(int32_column("n"), 1, 3, {{.body = pw::plain_int32({7, -1, 42}), .num_values = 3}});
  const ParquetRows file = parse(bytes);
  ASSERT_EQ(file.rows.rows.size(), 3u);
  EXPECT_EQ(file.rows.rows[2].object, Json::parse(R"({"n": 42})"));
  EXPECT_EQ(file.rows.rows[2].line, 3u);
  EXPECT_EQ(file.rows.source, "crafted.parquet");
}

TEST(Parquet, UnknownFooterFieldsOfEveryTypeAreSkipped) {
  pw::File file;
  file.schema = {root(1), int32_column("n")};
  file.row_groups = {
      {1, {{.path = {"n"}, .num_values = 1, .pages = {{.body = pw::plain_int32({5}), .num_values = 1}}}}}};
  file.extra_footer_fields = std::string("\x09\x64\x31\x01\x02\x01", 6)          // 50: list<bool>
                             + std::string("\x0B\x66\x01\x58\x0E\x02hi", 8)      // 51: map<i32, binary>
                             + std::string("\x07\x68") + std::string(8, '\x11')  // 52: double
                             + std::string("\x0C\x6A\x16\x05\x00", 5)            // 53: struct {1: i64}
                             + std::string("\x0A\x6C\x24\x02\x04", 5);           // 54: set<i16>
  EXPECT_EQ(parse(pw::write_file(file)).rows.rows[0].object, Json::parse(R"({"n": 5})"));
}

TEST(Parquet, MetadataNestedTooDeeplyIsAnError) {
  std::string footer(40, '\x1C');  // field +1, struct: each opens one more level
  footer += std::string(41, '\0');
  const auto size = static_cast<std::uint32_t>(footer.size());
  std::string bytes = "PAR1" + footer;
  bytes.append(reinterpret_cast<const char*>(&size), 4);
  bytes += "PAR1";
  EXPECT_EQ(error_of([&] { parse(bytes); }),
            "crafted.parquet: footer: structures nest deeper than 32 levels at byte 32 of 81");
}

// A group's children take elements of the flat schema list that the root counted as its own.
TEST(Parquet, SchemaShorterThanItsTreeIsAnError) {
  pw::File file;
  file.schema = {root(2), {.name = "g", .repetition = 0, .num_children = 1}, int32_column("a")};
  EXPECT_EQ(error_of([&] { parse(pw::write_file(file)); }),
            "crafted.parquet: schema: field <root> declares 2 children but the schema ends after 1");
  file.schema = {root(1), int32_column("a"), int32_column("b")};
  EXPECT_EQ(error_of([&] { parse(pw::write_file(file)); }),
            "crafted.parquet: schema: the schema lists 3 elements but its tree holds 2");
}

TEST(Parquet, LegacyTwoLevelListsAndRepeatedFields) {
  // optional group tags (LIST) { repeated int32 array; }  -- the repeated leaf is the element
  // repeated int32 plain;                                   -- a repeated field is a list
  pw::File file;
  file.schema = {root(2),
                 {.name = "tags", .repetition = 1, .num_children = 1, .converted_type = 3},
                 int32_column("array", 2),
                 int32_column("plain", 2)};
  // Rows: {tags: [1, 2], plain: [3]}, {tags: null, plain: []}, {tags: [], plain: [4, 5]}.
  const std::string tag_levels = pw::v1_levels({0, 1, 0, 0}, 1) + pw::v1_levels({2, 2, 0, 1}, 2);
  const std::string plain_levels = pw::v1_levels({0, 0, 0, 1}, 1) + pw::v1_levels({1, 0, 1, 1}, 1);
  file.row_groups = {{3,
                      {{.path = {"tags", "array"},
                        .num_values = 4,
                        .pages = {{.body = tag_levels + pw::plain_int32({1, 2}), .num_values = 4}}},
                       {.path = {"plain"},
                        .num_values = 4,
                        .pages = {{.body = plain_levels + pw::plain_int32({3, 4, 5}), .num_values = 4}}}}}};
  const ParquetRows rows = parse(pw::write_file(file));
  ASSERT_EQ(rows.rows.rows.size(), 3u);
  EXPECT_EQ(rows.rows.rows[0].object, Json::parse(R"({"tags": [1, 2], "plain": [3]})"));
  EXPECT_EQ(rows.rows.rows[1].object, Json::parse(R"({"tags": null, "plain": []})"));
  EXPECT_EQ(rows.rows.rows[2].object, Json::parse(R"({"tags": [], "plain": [4, 5]})"));
}

TEST(Parquet, MapsAreListsOfKeyValuePairsAndDecimalsAreNumbers) {
  pw::File file;
  file.schema = {root(2),
                 {.name = "m", .repetition = 1, .num_children = 1, .converted_type = 1},
                 {.name = "key_value", .repetition = 2, .num_children = 2},
                 string_column("key"),
                 int32_column("value", 1),
                 {.name = "price", .type = 1, .repetition = 0, .converted_type = 5, .scale = 2}};
  // Rows: {m: [{a: 1}, {b: null}], price: 12.34}, {m: null, price: -0.05}.
  const std::string key_levels = pw::v1_levels({0, 1, 0}, 1) + pw::v1_levels({2, 2, 0}, 2);
  const std::string value_levels = pw::v1_levels({0, 1, 0}, 1) + pw::v1_levels({3, 2, 0}, 2);
  file.row_groups = {{2,
                      {{.path = {"m", "key_value", "key"},
                        .type = 6,
                        .num_values = 3,
                        .pages = {{.body = key_levels + pw::plain_strings({"a", "b"}), .num_values = 3}}},
                       {.path = {"m", "key_value", "value"},
                        .num_values = 3,
                        .pages = {{.body = value_levels + pw::plain_int32({1}), .num_values = 3}}},
                       {.path = {"price"},
                        .num_values = 2,
                        .pages = {{.body = pw::plain_int32({1234, -5}), .num_values = 2}}}}}};
  const ParquetRows rows = parse(pw::write_file(file));
  ASSERT_EQ(rows.rows.rows.size(), 2u);
  const Json& first = rows.rows.rows[0].object;
  EXPECT_EQ(first["m"], Json::parse(R"([{"key": "a", "value": 1}, {"key": "b", "value": null}])"));
  EXPECT_DOUBLE_EQ(first["price"].get<double>(), 12.34);
  EXPECT_TRUE(rows.rows.rows[1].object["m"].is_null());
  EXPECT_DOUBLE_EQ(rows.rows.rows[1].object["price"].get<double>(), -0.05);
}

// pyarrow writes decimal128 as FIXED_LEN_BYTE_ARRAY, big-endian two's complement.
TEST(Parquet, DecimalsInBytesAreNumbers) {
  const pw::Element column = {
      .name = "d", .type = 7, .repetition = 0, .converted_type = 5, .scale = 2, .type_length = 3};
  const std::string bytes = one_column(
      column, 7, 3, {{.body = std::string("\x00\x04\xD2\xFF\xFF\xFB\x80\x00\x00", 9), .num_values = 3}});
  const ParquetRows rows = parse(bytes);
  ASSERT_EQ(rows.rows.rows.size(), 3u);
  EXPECT_DOUBLE_EQ(rows.rows.rows[0].object["d"].get<double>(), 12.34);
  EXPECT_DOUBLE_EQ(rows.rows.rows[1].object["d"].get<double>(), -0.05);
  EXPECT_DOUBLE_EQ(rows.rows.rows[2].object["d"].get<double>(), -83886.08);
}

// Impala and old parquet-mr mark a MAP's repeated group MAP_KEY_VALUE: it is the entry, not
// another map.
TEST(Parquet, MapKeyValueGroupsAreTheEntries) {
  pw::File file;
  file.schema = {root(1),
                 {.name = "m", .repetition = 1, .num_children = 1, .converted_type = 1},
                 {.name = "map", .repetition = 2, .num_children = 2, .converted_type = 2},
                 string_column("key"),
                 int32_column("value", 1)};
  file.row_groups = {
      {1,
       {{.path = {"m", "map", "key"},
         .type = 6,
         .num_values = 1,
         .pages = {{.body = pw::v1_levels({0}, 1) + pw::v1_levels({2}, 2) + pw::plain_strings({"k"}),
                    .num_values = 1}}},
        {.path = {"m", "map", "value"},
         .num_values = 1,
         .pages = {{.body = pw::v1_levels({0}, 1) + pw::v1_levels({3}, 2) + pw::plain_int32({9}),
                    .num_values = 1}}}}}};
  EXPECT_EQ(parse(pw::write_file(file)).rows.rows[0].object,
            Json::parse(R"({"m": [{"key": "k", "value": 9}]})"));
}

// What some writers write and pyarrow reads: a footer total of 0 rows (the row groups count),
// and the chunks of an empty row group at offset 0.
TEST(Parquet, RowGroupsCountTheRowsAndEmptyChunksNeedNoData) {
  pw::File file;
  file.schema = {root(1), int32_column("n")};
  file.row_groups = {
      {2, {{.path = {"n"}, .num_values = 2, .pages = {{.body = pw::plain_int32({1, 2}), .num_values = 2}}}}},
      {0, {{.path = {"n"}, .num_values = 0, .data_page_offset = 0}}}};
  file.num_rows = 0;
  const ParquetRows rows = parse(pw::write_file(file));
  ASSERT_EQ(rows.rows.rows.size(), 2u);
  EXPECT_EQ(rows.rows.rows[1].object, Json::parse(R"({"n": 2})"));
}

std::string gzip(const std::string& data) {
  z_stream stream{};
  EXPECT_EQ(deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&stream, data.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  stream.avail_in = static_cast<uInt>(data.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&stream, Z_FINISH), Z_STREAM_END);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return out;
}

TEST(Parquet, GzipPagesOfSeveralMembers) {
  const std::string first = pw::plain_int32({1, 2}), second = pw::plain_int32({3});
  const std::string bytes =
      one_column(int32_column("n"), 1, 3,
                 {{.body = gzip(first) + gzip(second), .num_values = 3, .uncompressed_size = 12}}, 2);
  const ParquetRows rows = parse(bytes);
  ASSERT_EQ(rows.rows.rows.size(), 3u);
  EXPECT_EQ(rows.rows.rows[2].object, Json::parse(R"({"n": 3})"));
  const std::string short_page = one_column(
      int32_column("n"), 1, 3, {{.body = gzip(first), .num_values = 3, .uncompressed_size = 12}}, 2);
  EXPECT_EQ(
      error_of([&] { parse(short_page, "gz.parquet"); }),
      "gz.parquet: column n: row group 1: page 1: the page declares 12 bytes uncompressed but its GZIP data "
      "holds 8");
}

// Two strings in a dictionary, then a data page of indices.
std::string dictionary_file(std::uint32_t index) {
  const std::string indices = std::string(1, '\x03') + pw::rle({0, index, 1}, 3);
  return one_column(string_column("word"), 6, 3,
                    {{.type = 2, .body = pw::plain_strings({"yes", "no"}), .num_values = 2},
                     {.body = indices, .num_values = 3, .encoding = 8}});
}

TEST(Parquet, DictionaryIndicesPastTheDictionaryAreAnError) {
  EXPECT_EQ(parse(dictionary_file(1)).rows.rows[1].object, Json::parse(R"({"word": "no"})"));
  EXPECT_EQ(
      error_of([&] { parse(dictionary_file(5), "bad.parquet"); }),
      "bad.parquet: column word: row group 1: page 2: dictionary index 5 above the largest possible, 1");
}

TEST(Parquet, StringsThatAreNotUtf8AreAnError) {
  const std::string bytes = one_column(string_column("s"), 6, 2,
                                       {{.body = pw::plain_strings({"fine", "caf\xE9"}), .num_values = 2}});
  EXPECT_EQ(
      error_of([&] { parse(bytes, "latin1.parquet"); }),
      "latin1.parquet: column s: row group 1: page 1: value 2 of the page is not UTF-8 text (byte 3: 0xE9); "
      "shmtrain reads strings only");
}

TEST(Parquet, HugeDeclaredSizesAndCountsAreRefusedBeforeAllocation) {
  const std::string values = pw::plain_int32({1, 2});
  const auto error = [&](pw::Page page) {
    return error_of([&] { parse(one_column(int32_column("n"), 1, 2, {page}), "huge.parquet"); });
  };
  EXPECT_EQ(
      error({.body = values, .num_values = 2, .uncompressed_size = INT32_MAX})
          .rfind(
              "huge.parquet: column n: row group 1: page 1: the page declares 2147483647 bytes uncompressed, "
              "more than the ",
              0),
      0u);
  EXPECT_EQ(
      error({.body = values, .num_values = 2, .compressed_size = 1 << 30}),
      "huge.parquet: column n: row group 1: page 1: 1073741824 bytes of page data where the column chunk has "
      "8 left");
  EXPECT_EQ(error({.body = values, .num_values = -1}),
            "huge.parquet: column n: row group 1: page 1: -1 values where the column chunk has 2 left");

  // One row holding a list of a billion values, which levels could encode in a few bytes:
  // refused by the memory budget before anything is decoded.
  const std::int32_t billion = 1'000'000'000;
  pw::File file;
  file.schema = {root(1), int32_column("r", 2)};
  file.row_groups = {{1,
                      {{.path = {"r"},
                        .num_values = billion,
                        .pages = {{.body = std::string(16, '\0'), .num_values = billion}}}}}};
  const std::string message = error_of([&] { parse(pw::write_file(file), "many.parquet"); });
  EXPECT_EQ(message.rfind("many.parquet: column r: row group 1: page 1: its rows would take more than ", 0),
            0u)
      << message;
  // A billion rows: refused before the rows are read.
  file.row_groups[0].num_rows = billion;
  EXPECT_NE(error_of([&] { parse(pw::write_file(file), "many.parquet"); }).find("MiB of memory"),
            std::string::npos);
}

TEST(Parquet, UnsupportedCodecsAndTypesAreNamed) {
  const std::string lz4 =
      one_column(int32_column("n"), 1, 1, {{.body = pw::plain_int32({1}), .num_values = 1}}, 7);
  EXPECT_NE(error_of([&] { parse(lz4, "lz4.parquet"); })
                .find("lz4.parquet: column n: row group 1: page 1: "
                      "compression codec LZ4_RAW is not supported"),
            std::string::npos);
  const std::string int96 = one_column({.name = "ts", .type = 3, .repetition = 0}, 3, 1,
                                       {{.body = std::string(12, '\0'), .num_values = 1}});
  EXPECT_NE(error_of([&] {
              parse(int96, "ts.parquet");
            }).find("ts.parquet: schema: column ts: INT96 values (legacy timestamps) are not supported"),
            std::string::npos);
}

TEST(Parquet, LevelsThatDisagreeAreAnError) {
  // Two required leaves of an optional struct: one says the struct is there, the other not.
  pw::File file;
  file.schema = {
      root(1), {.name = "s", .repetition = 1, .num_children = 2}, int32_column("a"), int32_column("b")};
  file.row_groups = {
      {1,
       {{.path = {"s", "a"},
         .num_values = 1,
         .pages = {{.body = pw::v1_levels({1}, 1) + pw::plain_int32({1}), .num_values = 1}}},
        {.path = {"s", "b"}, .num_values = 1, .pages = {{.body = pw::v1_levels({0}, 1), .num_values = 1}}}}}};
  EXPECT_EQ(
      error_of([&] { parse(pw::write_file(file)); }),
      "crafted.parquet: row group 1: row 1: column s.b: definition level 0 where its columns' levels say 1");
}

// --- damaged fixtures -----------------------------------------------------------------------

TEST(Parquet, BadMagicAndFooterLengthAreNamed) {
  std::string bytes = testing::read_file(fixture("glue_mrpc_v1_snappy.parquet"));
  std::string bad = bytes;
  bad[3] = '2';
  EXPECT_EQ(error_of([&] { parse(bad, "x.parquet"); }),
            "x.parquet: not a Parquet file (it does not start with PAR1)");
  bad = bytes;
  const std::uint32_t huge = 0xFFFFFF00u;
  std::memcpy(bad.data() + bad.size() - 8, &huge, 4);
  EXPECT_EQ(error_of([&] { parse(bad, "x.parquet"); }),
            "x.parquet: the footer's length, 4294967040 bytes, runs past the start of the file (" +
                std::to_string(bytes.size()) + " bytes): the file is truncated or damaged");
  EXPECT_EQ(error_of([&] { parse("PAR1", "x.parquet"); }),
            "x.parquet: 4 bytes is too short to be a Parquet file (expected PAR1 ... PAR1)");
}

TEST(Parquet, EveryTruncationIsOneErrorNamingTheFile) {
  for (const char* name : {"squad_v1_snappy", "nested_nulls_v2", "paged_v2_gzip"}) {
    const std::string bytes = testing::read_file(fixture(std::string(name) + ".parquet"));
    const std::size_t step = bytes.size() > 5000 ? 7 : 1;
    for (std::size_t size = 0; size < bytes.size(); size += step) {
      const std::string message = error_of([&] { parse(bytes.substr(0, size), "cut.parquet"); });
      ASSERT_EQ(message.rfind("cut.parquet: ", 0), 0u) << name << " cut at " << size << ": " << message;
    }
  }
}

// Any change to any byte gives the rows or one InputError: never a crash, a hang or another
// exception (which would fail the test).
TEST(Parquet, DamagedBytesGiveRowsOrAnInputError) {
  for (const char* name : {"squad_v1_snappy", "nested_nulls_v1", "delta_v2_none", "scalars_dict_v2_zstd"}) {
    const std::string bytes = testing::read_file(fixture(std::string(name) + ".parquet"));
    std::uint32_t state = 1;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      state = state * 1664525u + 1013904223u;
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(i % 3 == 0 ? damaged[i] ^ 0xFF : static_cast<char>(state >> 24));
      try {
        parse(damaged, "damaged.parquet");
      } catch (const InputError& e) {
        ASSERT_EQ(std::string(e.what()).rfind("damaged.parquet: ", 0), 0u) << e.what();
      }
    }
  }
}

}  // namespace
}  // namespace shmtrain::data
