// model.safetensors (and the optimizer's state file): the 8-byte header length, the JSON
// header, every tensor entry against the data that follows.
#include "fuzz_support.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = shmtrain::fuzz::write_input("model.safetensors", shmtrain::fuzz::as_text(data, size));
  try {
    const shmtrain::io::SafetensorsReader reader(path);
  } catch (const shmtrain::Error&) {
  }
  return 0;
}
