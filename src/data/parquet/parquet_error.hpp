#pragma once
// How the Parquet reader words damage. The decoders throw InputError with what is wrong where
// they find it ("page header: ..."); each level above adds where it was ("column answers.text:
// row group 1: page 2: ...") by catching and prefixing, and parse_parquet adds the file. One
// error reaches the caller, read left to right from the file down to the byte.
#include <string_view>
#include <utility>

#include "shmtrain/common/error.hpp"

namespace shmtrain::data::parquet {

// Runs `body`; an InputError leaving it comes out as "<context>: <its message>".
template <typename Body>
decltype(auto) in_context(std::string_view context, Body&& body) {
  try {
    return std::forward<Body>(body)();
  } catch (const InputError& e) {
    fail_input("{}: {}", context, e.what());
  }
}

}  // namespace shmtrain::data::parquet
