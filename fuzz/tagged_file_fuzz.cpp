// run_ner's data files: any bytes as CoNLL text (byte 0 even) or as JSON Lines (odd), through
// the reader and, when they read, through the NER task's tokenization and tag alignment.
#include "fuzz_support.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/task/task.hpp"
#include "shmtrain/text/hf_tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto tokenizer = shmtrain::text::HfTokenizer::load_bert(SHMTRAIN_FUZZ_VOCAB);
  if (size == 0) return 0;
  const char* name = data[0] % 2 == 0 ? "data.txt" : "data.jsonl";
  const auto path = shmtrain::fuzz::write_input(name, shmtrain::fuzz::as_text(data + 1, size - 1));
  shmtrain::task::TaskOptions options;
  options.task_name = "ner";
  options.train_file = path;
  options.validation_file = path;
  options.max_seq_length = 32;
  try {
    shmtrain::task::load_task(options, tokenizer, true, true);
  } catch (const shmtrain::Error&) {
  }
  return 0;
}
