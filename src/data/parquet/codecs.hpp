#pragma once
// The page codecs: UNCOMPRESSED, SNAPPY (libsnappy), GZIP (zlib) and ZSTD (libzstd). A page
// must decompress to exactly the size its header declares; the output buffer is that size
// (checked against the reader's limits before this is called), so a codec stream that claims
// or holds more is refused, never followed.
#include <cstddef>
#include <memory>
#include <span>

#include "parquet_metadata.hpp"

namespace shmtrain::data::parquet {

// Reused from page to page; grows to the largest page and stays.
class PageBuffer {
 public:
  std::span<std::byte> reserve(std::size_t size);

 private:
  std::unique_ptr<std::byte[]> data_;
  std::size_t capacity_ = 0;
};

// The `uncompressed_size` bytes that `input` holds under `codec`: `input` itself when
// uncompressed (whose size must then be `uncompressed_size`), else in `buffer`. InputError
// naming the codec when it is one this reader lacks or the data is damaged.
std::span<const std::byte> decompress(Codec codec, std::span<const std::byte> input,
                                      std::size_t uncompressed_size, PageBuffer& buffer);

}  // namespace shmtrain::data::parquet
