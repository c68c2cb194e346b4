#pragma once
// The element types a safetensors file may declare, and the conversions shmtrain needs
// between them and float32. Names and sizes follow the safetensors format specification
// (https://github.com/huggingface/safetensors, "Format"); all data is little-endian.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace shmtrain::io {

// Readers and writers copy little-endian bytes straight to and from memory.
static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; a big-endian host would need byte swaps");

// Every dtype the format defines. A file may hold any of them (Hugging Face BERT checkpoints
// carry an I64 `position_ids` buffer, for example); only the floating types in
// `is_loadable_as_f32` can be loaded into a float buffer.
enum class Dtype {
  kBool,
  kU8,
  kI8,
  kF8E5M2,
  kF8E4M3,
  kI16,
  kU16,
  kF16,
  kBF16,
  kI32,
  kU32,
  kF32,
  kF64,
  kI64,
  kU64,
};

// The spelling used in the header ("F32", "BF16", "F8_E4M3", ...).
std::string_view dtype_name(Dtype dtype);
// nullopt when `name` is not a dtype of the format.
std::optional<Dtype> parse_dtype(std::string_view name);
// Bytes per element.
std::size_t dtype_size(Dtype dtype);
// F32, F16, BF16 and F64: the types `convert_to_f32` accepts.
bool is_loadable_as_f32(Dtype dtype);

// IEEE binary16 -> binary32. Exact for every input (binary32 holds every binary16 value):
// subnormals are normalised, infinities keep their sign, NaNs keep sign and payload.
float f16_to_f32(std::uint16_t bits);
// bfloat16 is the upper half of a binary32, so this is exact too.
float bf16_to_f32(std::uint16_t bits);
// binary32 -> bfloat16, rounding to nearest, ties to even (as torch does); NaN stays a
// quiet NaN of the same sign, infinities stay infinities.
std::uint16_t f32_to_bf16(float value);

// Converts `out.size()` little-endian elements of `dtype` starting at `src` into `out`.
// REQUIRES: is_loadable_as_f32(dtype); `src` holds out.size() * dtype_size(dtype) bytes.
// `src` needs no alignment. F64 values round to nearest float (overflow gives infinity).
void convert_to_f32(Dtype dtype, const std::byte* src, std::span<float> out);

}  // namespace shmtrain::io
