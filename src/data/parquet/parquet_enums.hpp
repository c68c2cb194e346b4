#pragma once
// Parquet's Thrift enums read from a file: a value outside the enum's range is an error naming
// what it was (a file from a newer writer, or a damaged one), never a cast to an unknown value.
#include <cstdint>
#include <string_view>

#include "parquet_metadata.hpp"
#include "shmtrain/common/error.hpp"

namespace shmtrain::data::parquet {

template <typename Enum>
Enum enum_value(std::int32_t value, std::int32_t low, std::int32_t high, std::string_view what) {
  if (value < low || value > high) fail_input("unknown {} {}", what, value);
  return static_cast<Enum>(value);
}

Encoding encoding_value(std::int32_t value);

}  // namespace shmtrain::data::parquet
