// SQuAD JSON, nested and flat forms; byte 0's low bit: whether answers are required.
#include "fuzz_support.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/task/squad/squad_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  try {
    (void)shmtrain::task::parse_squad(shmtrain::fuzz::as_text(data + 1, size - 1), "train.json",
                                      (data[0] & 1) != 0);
  } catch (const shmtrain::Error&) {
  }
  return 0;
}
