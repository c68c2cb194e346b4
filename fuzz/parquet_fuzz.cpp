// Parquet files: the input is the file, read from memory (the path reader only adds an mmap).
// The ClassLabel look-up runs on whatever features a file carries.
#include "fuzz_support.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/data/parquet.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const shmtrain::data::ParquetRows file =
        shmtrain::data::parse_parquet({reinterpret_cast<const std::byte*>(data), size}, "train.parquet");
    if (file.features.is_object()) {
      for (const auto& item : file.features.items())
        (void)shmtrain::data::parquet_class_names(file, item.key());
    }
  } catch (const shmtrain::Error&) {
  }
  return 0;
}
