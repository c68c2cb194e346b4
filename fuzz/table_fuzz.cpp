// The data files: byte 0 picks GLUE TSV (with a header or without), CSV or JSON Lines; the
// rest is the file.
#include "fuzz_support.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/data/json_lines.hpp"
#include "shmtrain/data/table.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view file = shmtrain::fuzz::as_text(data + 1, size - 1);
  try {
    switch (data[0] % 4) {
      case 0:
        (void)shmtrain::data::read_tsv(shmtrain::fuzz::write_input("train.tsv", file), "training", true);
        break;
      case 1:
        (void)shmtrain::data::read_tsv(shmtrain::fuzz::write_input("train.tsv", file), "training", false);
        break;
      case 2:
        (void)shmtrain::data::read_csv(shmtrain::fuzz::write_input("train.csv", file), "training");
        break;
      default:
        (void)shmtrain::data::json_lines_table(
            shmtrain::data::read_json_lines(shmtrain::fuzz::write_input("train.jsonl", file), "training"));
    }
  } catch (const shmtrain::Error&) {
  }
  return 0;
}
