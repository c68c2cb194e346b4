#include "shmtrain/io/safetensors_dtype.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "io/safetensors_bytes.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::io {
namespace {

std::uint32_t bits(float value) { return std::bit_cast<std::uint32_t>(value); }

// `bytes` after one padding byte, so that no element is aligned at data() + 1.
std::string behind_one_byte(const std::string& bytes) {
  std::string out(1, ' ');
  out += bytes;  // (not " " + bytes: GCC 12 gives a false -Wrestrict warning for that)
  return out;
}

TEST(SafetensorsDtype, NamesAndSizesFollowTheFormat) {
  EXPECT_EQ(parse_dtype("F32"), Dtype::kF32);
  EXPECT_EQ(parse_dtype("BF16"), Dtype::kBF16);
  EXPECT_EQ(parse_dtype("F8_E4M3"), Dtype::kF8E4M3);
  EXPECT_EQ(parse_dtype("I64"), Dtype::kI64);
  EXPECT_FALSE(parse_dtype("f32").has_value());  // the format is case-sensitive
  EXPECT_FALSE(parse_dtype("F17").has_value());
  EXPECT_EQ(dtype_name(Dtype::kBF16), "BF16");
  EXPECT_EQ(dtype_size(Dtype::kF64), 8u);
  EXPECT_EQ(dtype_size(Dtype::kF32), 4u);
  EXPECT_EQ(dtype_size(Dtype::kF16), 2u);
  EXPECT_EQ(dtype_size(Dtype::kBool), 1u);
  EXPECT_TRUE(is_loadable_as_f32(Dtype::kF16));
  EXPECT_FALSE(is_loadable_as_f32(Dtype::kI64));
}

TEST(SafetensorsDtype, F16HandComputedValues) {
  EXPECT_EQ(f16_to_f32(0x3c00), 1.0f);
  EXPECT_EQ(f16_to_f32(0x3800), 0.5f);
  EXPECT_EQ(f16_to_f32(0xc000), -2.0f);
  EXPECT_EQ(f16_to_f32(0x3555), 1365.0f / 4096.0f);         // 0.333251953125
  EXPECT_EQ(f16_to_f32(0x7bff), 65504.0f);                  // largest finite
  EXPECT_EQ(f16_to_f32(0x0400), std::ldexp(1.0f, -14));     // smallest normal
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));     // smallest subnormal
  EXPECT_EQ(f16_to_f32(0x03ff), std::ldexp(1023.0f, -24));  // largest subnormal
  EXPECT_EQ(f16_to_f32(0x8001), -std::ldexp(1.0f, -24));
  EXPECT_EQ(bits(f16_to_f32(0x0000)), 0x00000000u);
  EXPECT_EQ(bits(f16_to_f32(0x8000)), 0x80000000u);  // -0.0 keeps its sign
  EXPECT_EQ(f16_to_f32(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(f16_to_f32(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(bits(f16_to_f32(0x7e00)), 0x7fc00000u);  // the canonical quiet NaN
  EXPECT_EQ(bits(f16_to_f32(0xfc01)), 0xff802000u);  // signalling NaN: sign and payload kept
}

// Every binary16 value against its definition, computed with arithmetic instead of bits:
// (-1)^s * 2^(e-15) * (1 + m/1024) for normals, (-1)^s * 2^-24 * m for subnormals.
TEST(SafetensorsDtype, F16AllValuesMatchTheDefinition) {
  int mismatches = 0;
  for (std::uint32_t h = 0; h <= 0xffff; ++h) {
    const int sign = (h >> 15) ? -1 : 1;
    const int exponent = static_cast<int>((h >> 10) & 0x1f);
    const int mantissa = static_cast<int>(h & 0x3ff);
    const float actual = f16_to_f32(static_cast<std::uint16_t>(h));
    bool ok;
    if (exponent == 31) {
      ok = mantissa == 0 ? actual == sign * std::numeric_limits<float>::infinity()
                         : std::isnan(actual) && std::signbit(actual) == (sign < 0);
    } else {
      const double magnitude =
          exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
      ok = actual == static_cast<float>(sign * magnitude) && std::signbit(actual) == (sign < 0);
    }
    if (!ok && ++mismatches <= 8) ADD_FAILURE() << "f16 0x" << std::hex << h << " -> " << actual;
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(SafetensorsDtype, Bf16ToF32IsTheUpperHalf) {
  EXPECT_EQ(bf16_to_f32(0x3f80), 1.0f);
  EXPECT_EQ(bf16_to_f32(0xc049), -3.140625f);
  EXPECT_EQ(bf16_to_f32(0x7f80), std::numeric_limits<float>::infinity());
  EXPECT_EQ(bf16_to_f32(0x0001), std::ldexp(1.0f, -133));  // smallest subnormal
  EXPECT_EQ(bits(bf16_to_f32(0x8000)), 0x80000000u);
  EXPECT_EQ(bits(bf16_to_f32(0xffc1)), 0xffc10000u);
}

TEST(SafetensorsDtype, F32ToBf16RoundsToNearestEven) {
  const float ulp = std::ldexp(1.0f, -7);  // bf16 spacing in [1, 2)
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(f32_to_bf16(1.0f + ulp / 2), 0x3f80);                          // tie -> even (down)
  EXPECT_EQ(f32_to_bf16(1.0f + 3 * ulp / 2), 0x3f82);                      // tie -> even (up)
  EXPECT_EQ(f32_to_bf16(1.0f + ulp / 2 + std::ldexp(1.0f, -20)), 0x3f81);  // above the tie
  EXPECT_EQ(f32_to_bf16(-1.0f - ulp / 2 - std::ldexp(1.0f, -20)), 0xbf81);
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds past the top: inf
  EXPECT_EQ(f32_to_bf16(-std::numeric_limits<float>::infinity()), 0xff80);
  EXPECT_EQ(f32_to_bf16(-0.0f), 0x8000);
  // A signalling NaN whose payload lives only in the dropped bits must stay a NaN.
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0x7f800001u)), 0x7fc0);
  EXPECT_EQ(f32_to_bf16(std::bit_cast<float>(0xffc00000u)), 0xffc0);
}

TEST(SafetensorsDtype, ConvertToF32HandlesEachFloatTypeAndUnalignedInput) {
  // One byte of offset so that no source element is aligned.
  const std::string f16 =
      behind_one_byte(testing::raw_bytes(std::vector<std::uint16_t>{0x3c00, 0xc000, 0x0001}));
  std::vector<float> out(3);
  convert_to_f32(Dtype::kF16, reinterpret_cast<const std::byte*>(f16.data() + 1), out);
  EXPECT_EQ(out, (std::vector<float>{1.0f, -2.0f, std::ldexp(1.0f, -24)}));

  const std::string bf16 =
      behind_one_byte(testing::raw_bytes(std::vector<std::uint16_t>{0x3f80, 0xc049, 0x0000}));
  convert_to_f32(Dtype::kBF16, reinterpret_cast<const std::byte*>(bf16.data() + 1), out);
  EXPECT_EQ(out, (std::vector<float>{1.0f, -3.140625f, 0.0f}));

  const std::string f64 = behind_one_byte(testing::raw_bytes(std::vector<double>{0.1, 1e300, -2.5}));
  convert_to_f32(Dtype::kF64, reinterpret_cast<const std::byte*>(f64.data() + 1), out);
  EXPECT_EQ(out, (std::vector<float>{0.1f, std::numeric_limits<float>::infinity(), -2.5f}));

  const std::string f32 = behind_one_byte(testing::raw_bytes(std::vector<float>{1.5f, -0.25f, 3.0f}));
  convert_to_f32(Dtype::kF32, reinterpret_cast<const std::byte*>(f32.data() + 1), out);
  EXPECT_EQ(out, (std::vector<float>{1.5f, -0.25f, 3.0f}));

  EXPECT_THROW(convert_to_f32(Dtype::kI64, reinterpret_cast<const std::byte*>(f64.data()), out), Error);
}

}  // namespace
}  // namespace shmtrain::io
