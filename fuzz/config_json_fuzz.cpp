// config.json: JSON, the architecture's keys, labels, the size bounds and their product.
#include "fuzz_support.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/model/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const shmtrain::model::BertConfig config =
        shmtrain::model::parse_hf_config(shmtrain::fuzz::as_text(data, size), "config.json");
    config.validate("config.json");
    (void)shmtrain::model::hf_config_to_json(config);
  } catch (const shmtrain::Error&) {
  }
  return 0;
}
