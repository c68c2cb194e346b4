// `shmtrain encode`: texts -> sentence embeddings as a NumPy file, with a sentence-transformers
// (or plain Hugging Face) model folder, as SentenceTransformer(path).encode(texts) gives them.
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "shmtrain/cli/commands.hpp"
#include "shmtrain/train/embed.hpp"

namespace shmtrain::cli {

Command add_encode_command(CLI::App& app) {
  auto options = std::make_shared<train::EncodeOptions>();
  CLI::App* sub = app.add_subcommand(
      "encode", "Embed texts with a sentence-embedding model folder; write a float32 .npy, rows in input order");
  sub->add_option("--model_name_or_path", options->model.folder,
                  "a sentence-transformers folder (its Pooling and Normalize are used) or a Hugging Face model folder")
      ->required();
  sub->add_option("--input", options->input,
                  "the texts: .txt (one a line), or .jsonl/.json, .csv, .parquet with --text_column")
      ->required();
  sub->add_option("--output", options->output, "the .npy file to write (float32, texts x hidden size)")->required();
  sub->add_option("--text_column", options->text_column, "the column of texts in a table file (default text)");
  sub->add_flag("--normalize", options->model.normalize,
                "unit-length embeddings (a Normalize module), where the folder has none");
  sub->add_option("--pooling", options->model.pooling,
                  "mean, cls, max or lasttoken (default: the folder's Pooling module, else mean)");
  sub->add_option("--prompt", options->prompt, "a prefix put before every text (e.g. \"query: \")");
  sub->add_option("--max_seq_length", options->model.max_seq_length,
                  "truncate each text to this many tokens (default: sentence_bert_config.json's, else the model's)");
  sub->add_option("--batch_size", options->batch_size, "texts per forward pass (default 64)");
  return {sub, [options] {
            const std::int64_t rows = train::encode_file(*options);
            fmt::print("encoded {} texts into {}\n", rows, options->output.string());
            return 0;
          }};
}

}  // namespace shmtrain::cli
