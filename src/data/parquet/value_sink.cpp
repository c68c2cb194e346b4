#include "value_sink.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "shmtrain/common/error.hpp"
#include "shmtrain/text/utf8.hpp"

namespace shmtrain::data::parquet {
namespace {

// IEEE 754 binary16 to double.
double half_to_double(std::uint16_t half) {
  const int sign = (half >> 15) & 1;
  const int exponent = (half >> 10) & 0x1F;
  const int mantissa = half & 0x3FF;
  double value;
  if (exponent == 0) {
    value = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    value =
        mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else {
    value = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return sign ? -value : value;
}

// A DECIMAL's unscaled value stored big-endian in two's complement, as a double.
double unscaled_decimal(std::string_view bytes) {
  const bool negative = !bytes.empty() && (static_cast<unsigned char>(bytes[0]) & 0x80) != 0;
  double magnitude = 0;  // of -x - 1 when negative: the bytes' complement
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    magnitude = magnitude * 256 + (negative ? 255 - b : b);
  }
  return negative ? -(magnitude + 1) : magnitude;
}

}  // namespace

DecodeBudget::DecodeBudget(std::size_t file_size) {
  constexpr std::size_t kBase = std::size_t{64} << 20;
  constexpr std::size_t kPerByte = 256;
  const std::size_t max = std::numeric_limits<std::size_t>::max();
  total_ = file_size > (max - kBase) / kPerByte ? max : kBase + kPerByte * file_size;
  left_ = total_;
}

void DecodeBudget::charge(std::size_t bytes) {
  if (bytes > left_) fail();
  left_ -= bytes;
}

void DecodeBudget::charge(std::size_t count, std::size_t each) {
  if (each != 0 && count > left_ / each) fail();
  left_ -= count * each;
}

void DecodeBudget::fail() const {
  fail_input(
      "its rows would take more than {} MiB of memory, more than a file of this size can hold "
      "(a damaged or crafted file)",
      total_ >> 20);
}

void ValueSink::boolean(bool value) { out_.emplace_back(value); }

void ValueSink::int32(std::int32_t value) {
  switch (leaf_.kind) {
    case ValueKind::uint32:
      out_.emplace_back(static_cast<std::uint32_t>(value));
      return;
    case ValueKind::decimal32:
      out_.emplace_back(static_cast<double>(value) / std::pow(10.0, leaf_.scale));
      return;
    default:
      out_.emplace_back(value);
  }
}

void ValueSink::int64(std::int64_t value) {
  switch (leaf_.kind) {
    case ValueKind::uint64:
      out_.emplace_back(static_cast<std::uint64_t>(value));
      return;
    case ValueKind::decimal64:
      out_.emplace_back(static_cast<double>(value) / std::pow(10.0, leaf_.scale));
      return;
    default:
      out_.emplace_back(value);
  }
}

void ValueSink::real(double value) { out_.emplace_back(value); }

void ValueSink::bytes(std::string_view value) {
  if (leaf_.type == PhysicalType::fixed_len_byte_array &&
      value.size() != static_cast<std::size_t>(leaf_.type_length)) {
    fail_input("value {} of the page has {} bytes where the column's have {}", out_.size() - first_ + 1,
               value.size(), leaf_.type_length);
  }
  if (leaf_.kind == ValueKind::real16) {
    std::uint16_t half;
    std::memcpy(&half, value.data(), sizeof half);  // FLOAT16 values are two bytes (schema.cpp)
    out_.emplace_back(half_to_double(half));
    return;
  }
  if (leaf_.kind == ValueKind::decimal_bytes) {
    out_.emplace_back(unscaled_decimal(value) / std::pow(10.0, leaf_.scale));
    return;
  }
  const std::size_t bad = text::find_invalid_utf8(value);
  if (bad != std::string_view::npos) {
    fail_input("value {} of the page is not UTF-8 text (byte {}: 0x{:02X}); shmtrain reads strings only",
               out_.size() - first_ + 1, bad, static_cast<unsigned char>(value[bad]));
  }
  budget_.charge(value.size());
  out_.emplace_back(value);
}

void ValueSink::copy(const Json& value) {
  if (value.is_string()) budget_.charge(value.get_ref<const std::string&>().size());
  out_.push_back(value);
}

}  // namespace shmtrain::data::parquet
