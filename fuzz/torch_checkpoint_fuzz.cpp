// pytorch_model.bin: the zip directory, the restricted unpickler of data.pkl, and every
// tensor's view against its storage (io/torch_checkpoint.hpp).
#include <cstddef>
#include <cstdint>
#include <span>

#include "shmtrain/common/error.hpp"
#include "shmtrain/io/torch_checkpoint.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    shmtrain::io::read_torch_archive(std::span(reinterpret_cast<const std::byte*>(data), size), "pytorch_model.bin");
  } catch (const shmtrain::Error&) {
  }
  return 0;
}
