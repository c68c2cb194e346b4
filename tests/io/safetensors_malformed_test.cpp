// Every way a safetensors file can be broken that the reader must catch, each with the
// message fragment that tells the user what is wrong. Files are built byte by byte.
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/safetensors_bytes.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/io/safetensors.hpp"
#include "support/test_support.hpp"

namespace shmtrain::io {
namespace {

using shmtrain::testing::raw_bytes;
using shmtrain::testing::safetensors_bytes;

struct Malformed {
  const char* label;
  std::string bytes;
  std::string fragment;  // expected in the message, after "<path>: "
};

void PrintTo(const Malformed& c, std::ostream* os) { *os << c.label; }

const std::string k24 = std::string(24, '\0');  // data for a [2, 3] F32 tensor

std::vector<Malformed> cases() {
  const std::string ok_entry = R"("w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]})";
  return {
      {"empty", "", "file is 0 bytes, too short"},
      {"truncated_length", std::string("\x10\0\0\0\0", 5), "file is 5 bytes, too short"},
      {"length_past_end", safetensors_bytes("{}", "", 100),
       "header length 100 is past the end of the file (2 bytes"},
      {"length_2_pow_63", safetensors_bytes("{}", "", std::uint64_t{1} << 63),
       "header length 9223372036854775808 is past the end"},
      {"length_max_u64_no_overflow", safetensors_bytes("{}", "", std::numeric_limits<std::uint64_t>::max()),
       "header length 18446744073709551615 is past the end"},
      {"not_json", safetensors_bytes("{\"w\": nope}"), "header is not valid JSON"},
      {"zero_length_header", safetensors_bytes(""), "header is not valid JSON"},
      {"invalid_utf8", safetensors_bytes("{\"w\xff\":{}}"), "header is not valid JSON"},
      {"json_array", safetensors_bytes("[1, 2]"), "header is not a JSON object (it is array)"},
      {"json_number", safetensors_bytes("42"), "header is not a JSON object (it is integer)"},
      {"duplicate_name", safetensors_bytes("{" + ok_entry + "," + ok_entry + "}", k24),
       "header names 'w' twice"},
      {"entry_not_object", safetensors_bytes(R"({"w":[1,2]})"),
       "tensor 'w': entry must be an object, got array"},
      {"unknown_dtype",
       safetensors_bytes(R"({"w":{"dtype":"F17","shape":[2,3],"data_offsets":[0,24]}})", k24),
       "tensor 'w': unknown dtype 'F17'"},
      {"dtype_not_string",
       safetensors_bytes(R"({"w":{"dtype":32,"shape":[2,3],"data_offsets":[0,24]}})", k24),
       "tensor 'w': dtype must be a string, got integer"},
      {"missing_dtype", safetensors_bytes(R"({"w":{"shape":[2,3],"data_offsets":[0,24]}})", k24),
       "tensor 'w': missing dtype"},
      {"missing_shape", safetensors_bytes(R"({"w":{"dtype":"F32","data_offsets":[0,24]}})", k24),
       "tensor 'w': missing shape"},
      {"shape_not_array", safetensors_bytes(R"({"w":{"dtype":"F32","shape":6,"data_offsets":[0,24]}})", k24),
       "tensor 'w': shape must be an array, got integer"},
      {"negative_shape",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":[-2,3],"data_offsets":[0,24]}})", k24),
       "tensor 'w': shape [-2,3] has an entry -2 that is not a non-negative integer"},
      {"fractional_shape",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2.5,3],"data_offsets":[0,24]}})", k24),
       "tensor 'w': shape [2.5,3] has an entry 2.5 that is not a non-negative integer"},
      {"string_shape",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":["2",3],"data_offsets":[0,24]}})", k24),
       "has an entry \"2\" that is not a non-negative integer"},
      {"shape_overflow",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,24]}})",
                         k24),
       "tensor 'w': shape [4294967296,4294967296] has more elements than memory can hold"},
      {"shape_bytes_mismatch",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})",
                         std::string(20, '\0')),
       "tensor 'w': data_offsets [0, 20] hold 20 bytes but F32 [2, 3] needs 24"},
      {"missing_offsets", safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2,3]}})", k24),
       "tensor 'w': missing data_offsets"},
      {"offsets_three_entries",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24,48]}})", k24),
       "tensor 'w': data_offsets must be [begin, end] with non-negative integers, got [0,24,48]"},
      {"offsets_negative",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[-8,16]}})", k24),
       "tensor 'w': data_offsets must be [begin, end] with non-negative integers, got [-8,16]"},
      {"offsets_out_of_range",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2,4],"data_offsets":[0,32]}})", k24),
       "tensor 'w': data_offsets [0, 32] end past the data (24 bytes)"},
      {"offsets_reversed",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[24,0]}})", k24),
       "tensor 'w': data_offsets [24, 0] are reversed (begin > end)"},
      {"overlapping",
       safetensors_bytes(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                         R"("b":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})",
                         k24),
       "tensor 'b': data_offsets [8, 24] overlap tensor 'a' [0, 16]"},
      {"overlapping_same_range",
       safetensors_bytes(R"({"b":{"dtype":"F32","shape":[6],"data_offsets":[0,24]},)"
                         R"("a":{"dtype":"F32","shape":[6],"data_offsets":[0,24]}})",
                         k24),
       "tensor 'a': data_offsets [0, 24] overlap tensor 'b' [0, 24]"},
      {"gap_between_tensors",
       safetensors_bytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                         R"("b":{"dtype":"F32","shape":[2],"data_offsets":[16,24]}})",
                         k24),
       "data bytes [8, 16) belong to no tensor (before tensor 'b')"},
      {"trailing_data",
       safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}})", k24 + "xx"),
       "data bytes [24, 26) at the end belong to no tensor"},
      {"metadata_not_object", safetensors_bytes(R"({"__metadata__":["format","pt"]})"),
       "__metadata__ must be an object of strings, got array"},
      {"nested_100000_deep",
       safetensors_bytes("{\"w\":" + std::string(100000, '[') + std::string(100000, ']') + "}"),
       "header nests arrays and objects deeper than 512 levels (byte 516)"},
      {"metadata_value_not_string", safetensors_bytes(R"({"__metadata__":{"format":"pt","step":3}})"),
       "__metadata__ key 'step' must be a string, got integer"},
  };
}

class SafetensorsMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(SafetensorsMalformed, IsRejectedWithAClearMessage) {
  const Malformed& c = GetParam();
  shmtrain::testing::TempDir dir;
  const auto path = dir / "model.safetensors";
  shmtrain::testing::write_file(path, c.bytes);
  try {
    const SafetensorsReader reader(path);
    FAIL() << "accepted a malformed file; expected an error containing: " << c.fragment;
  } catch (const InputError& e) {
    const std::string message = e.what();
    EXPECT_EQ(message.rfind(path.string() + ": ", 0), 0u)
        << "message does not start with the path: " << message;
    EXPECT_NE(message.find(c.fragment), std::string::npos)
        << "message:  " << message << "\nexpected: " << c.fragment;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, SafetensorsMalformed, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Malformed>& param_info) {
                           return param_info.param.label;
                         });

TEST(SafetensorsReader, MissingFileAndFolderAreInputErrors) {
  shmtrain::testing::TempDir dir;
  EXPECT_THROW(
      {
        try {
          SafetensorsReader reader(dir / "absent.safetensors");
        } catch (const InputError& e) {
          EXPECT_NE(std::string(e.what()).find("absent.safetensors: file not found"), std::string::npos)
              << e.what();
          throw;
        }
      },
      InputError);
  EXPECT_THROW(SafetensorsReader reader(dir.path()), InputError);
}

// A length within the file but above the format's 100 MB header limit: a corrupt length
// field must not make the reader parse (or page in) hundreds of megabytes. The file is
// sparse, so the test costs no disk space.
TEST(SafetensorsReader, HeaderLengthAboveTheLimitIsRejected) {
  shmtrain::testing::TempDir dir;
  const auto path = dir / "big.safetensors";
  shmtrain::testing::write_file(path, safetensors_bytes("{", "", 150'000'000));
  std::filesystem::resize_file(path, 200'000'000);
  try {
    const SafetensorsReader reader(path);
    FAIL() << "accepted a 150 MB header";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("header length 150000000 exceeds the format's limit of 100000000 bytes"),
        std::string::npos)
        << e.what();
  }
}

// Files that are valid but hold what load() cannot or should not give out.
TEST(SafetensorsReader, LoadChecksNameDtypeAndSize) {
  shmtrain::testing::TempDir dir;
  const auto path = dir / "mixed.safetensors";
  // I64 position_ids as in Hugging Face BERT checkpoints, an F16 of odd byte length, then an
  // F32 at an unaligned offset (legal: the format does not require alignment).
  const std::string data = raw_bytes(std::vector<std::int64_t>{0, 1}) +
                           raw_bytes(std::vector<std::uint16_t>{0x3c00, 0xc000, 0x3800}) +
                           raw_bytes(std::vector<float>{7.5f});
  shmtrain::testing::write_file(
      path, safetensors_bytes(
                R"({"bert.embeddings.position_ids":{"dtype":"I64","shape":[1,2],"data_offsets":[0,16]},)"
                R"("half":{"dtype":"F16","shape":[3],"data_offsets":[16,22]},)"
                R"("odd":{"dtype":"F32","shape":[],"data_offsets":[22,26]}})",
                data));
  const SafetensorsReader reader(path);
  ASSERT_EQ(reader.tensors().size(), 3u);
  EXPECT_EQ(reader.info("bert.embeddings.position_ids").dtype, Dtype::kI64);
  EXPECT_EQ(reader.raw("bert.embeddings.position_ids").size(), 16u);
  EXPECT_EQ(reader.load("half"), (std::vector<float>{1.0f, -2.0f, 0.5f}));
  EXPECT_EQ(reader.load("odd"), std::vector<float>{7.5f});

  auto expect_error = [&](auto&& call, const std::string& fragment) {
    try {
      call();
      ADD_FAILURE() << "no error; expected: " << fragment;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  expect_error([&] { reader.load("bert.embeddings.position_ids"); },
               "tensor 'bert.embeddings.position_ids': dtype I64 cannot be loaded as float32");
  expect_error([&] { reader.load("missing"); }, "no tensor named 'missing'");
  expect_error([&] { reader.info("missing"); }, "no tensor named 'missing'");
  expect_error(
      [&] {
        std::vector<float> small(2);
        reader.load("half", small);
      },
      "tensor 'half': holds 3 values (shape [3]) but the destination has room for 2");
  expect_error([&] { reader.view_f32("half"); }, "tensor 'half': is F16, not F32");
  expect_error([&] { reader.view_f32("odd"); }, "tensor 'odd': data is not 4-byte aligned");
  EXPECT_FALSE(reader.contains("missing"));
  EXPECT_TRUE(reader.contains("odd"));
}

TEST(SafetensorsReader, ZeroSizeTensorsMayShareAnOffset) {
  shmtrain::testing::TempDir dir;
  const auto path = dir / "x.safetensors";
  shmtrain::testing::write_file(
      path, safetensors_bytes(R"({"e1":{"dtype":"F32","shape":[0],"data_offsets":[4,4]},)"
                              R"("w":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]},)"
                              R"("e2":{"dtype":"F16","shape":[3,0],"data_offsets":[4,4]},)"
                              R"("__metadata__":{"format":"pt"}})",
                              raw_bytes(std::vector<std::uint16_t>{0x3f80, 0xc049})));
  const SafetensorsReader reader(path);
  ASSERT_EQ(reader.tensors().size(), 3u);
  EXPECT_EQ(reader.tensors()[0].name, "w");  // in the order of the bytes
  EXPECT_EQ(reader.load("w"), (std::vector<float>{1.0f, -3.140625f}));
  EXPECT_TRUE(reader.load("e2").empty());
  EXPECT_TRUE(reader.view_f32("e1").empty());
}

}  // namespace
}  // namespace shmtrain::io
