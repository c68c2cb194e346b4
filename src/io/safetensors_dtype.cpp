#include "shmtrain/io/safetensors_dtype.hpp"

#include <array>
#include <bit>
#include <cstring>

#include "shmtrain/common/error.hpp"

namespace shmtrain::io {

namespace {

struct DtypeInfo {
  Dtype dtype;
  std::string_view name;
  std::size_t size;
};

constexpr std::array<DtypeInfo, 15> kDtypes = {{
    {Dtype::kBool, "BOOL", 1},
    {Dtype::kU8, "U8", 1},
    {Dtype::kI8, "I8", 1},
    {Dtype::kF8E5M2, "F8_E5M2", 1},
    {Dtype::kF8E4M3, "F8_E4M3", 1},
    {Dtype::kI16, "I16", 2},
    {Dtype::kU16, "U16", 2},
    {Dtype::kF16, "F16", 2},
    {Dtype::kBF16, "BF16", 2},
    {Dtype::kI32, "I32", 4},
    {Dtype::kU32, "U32", 4},
    {Dtype::kF32, "F32", 4},
    {Dtype::kF64, "F64", 8},
    {Dtype::kI64, "I64", 8},
    {Dtype::kU64, "U64", 8},
}};

const DtypeInfo& info(Dtype dtype) {
  for (const DtypeInfo& entry : kDtypes) {
    if (entry.dtype == dtype) return entry;
  }
  throw Error(fmt::format("unknown io::Dtype value {}", static_cast<int>(dtype)));
}

template <typename T>
T load_unaligned(const std::byte* src) {
  T value;
  std::memcpy(&value, src, sizeof(T));
  return value;
}

}  // namespace

std::string_view dtype_name(Dtype dtype) { return info(dtype).name; }

std::size_t dtype_size(Dtype dtype) { return info(dtype).size; }

std::optional<Dtype> parse_dtype(std::string_view name) {
  for (const DtypeInfo& entry : kDtypes) {
    if (entry.name == name) return entry.dtype;
  }
  return std::nullopt;
}

bool is_loadable_as_f32(Dtype dtype) {
  return dtype == Dtype::kF32 || dtype == Dtype::kF16 || dtype == Dtype::kBF16 || dtype == Dtype::kF64;
}

float f16_to_f32(std::uint16_t bits) {
  // binary16: 1 sign, 5 exponent (bias 15), 10 mantissa bits.
  // binary32: 1 sign, 8 exponent (bias 127), 23 mantissa bits.
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  std::uint32_t mantissa = bits & 0x3ffu;
  std::uint32_t out;
  if (exponent == 0x1f) {
    out = sign | 0x7f800000u | (mantissa << 13);  // inf, or NaN with its payload
  } else if (exponent != 0) {
    out = sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;  // signed zero
  } else {
    // Subnormal: value = mantissa * 2^-24. Shift the leading one into the implicit bit
    // position; each shift lowers the exponent by one from that of 2^-14.
    std::uint32_t biased = 127 - 14;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --biased;
    }
    out = sign | (biased << 23) | ((mantissa & 0x3ffu) << 13);
  }
  return std::bit_cast<float>(out);
}

float bf16_to_f32(std::uint16_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16); }

std::uint16_t f32_to_bf16(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) {
    // NaN: truncating could clear every payload bit left and make an infinity; set the quiet bit.
    return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
  }
  // Round to nearest even: add just under half an ulp of the result, plus one if the kept
  // part is odd, then truncate. Overflow past the largest finite value correctly gives inf.
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

void convert_to_f32(Dtype dtype, const std::byte* src, std::span<float> out) {
  const std::size_t n = out.size();
  switch (dtype) {
    case Dtype::kF32:
      if (n != 0) std::memcpy(out.data(), src, n * sizeof(float));
      return;
    case Dtype::kF16:
      for (std::size_t i = 0; i < n; ++i) out[i] = f16_to_f32(load_unaligned<std::uint16_t>(src + 2 * i));
      return;
    case Dtype::kBF16:
      for (std::size_t i = 0; i < n; ++i) out[i] = bf16_to_f32(load_unaligned<std::uint16_t>(src + 2 * i));
      return;
    case Dtype::kF64:
      for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<float>(load_unaligned<double>(src + 8 * i));
      return;
    default:
      throw Error(
          fmt::format("convert_to_f32: dtype {} is not a floating type shmtrain loads", dtype_name(dtype)));
  }
}

}  // namespace shmtrain::io
