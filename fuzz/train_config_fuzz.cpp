// The TOML run configuration (--config): keys, types, ranges of every option.
#include "fuzz_support.hpp"
#include "shmtrain/cli/train_option_table.hpp"
#include "shmtrain/common/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto path = shmtrain::fuzz::write_input("run.toml", shmtrain::fuzz::as_text(data, size));
  shmtrain::train::TrainOptions options;
  try {
    shmtrain::cli::apply_config_file(path, options);
  } catch (const shmtrain::Error&) {
  }
  return 0;
}
