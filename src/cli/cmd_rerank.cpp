// `shmtrain rerank`: each query's candidates scored and reordered by a cross-encoder folder, as
// CrossEncoder(path).rank(query, documents) gives them.
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "shmtrain/cli/commands.hpp"
#include "shmtrain/train/rerank.hpp"

namespace shmtrain::cli {

Command add_rerank_command(CLI::App& app) {
  auto options = std::make_shared<train::RerankOptions>();
  CLI::App* sub = app.add_subcommand(
      "rerank", "Score and reorder each query's candidates with a cross-encoder (reranker) folder; write JSON Lines");
  sub->add_option("--model_name_or_path", options->model,
                  "a reranker folder: <Family>ForSequenceClassification with one label (what --task_name reranking writes)")
      ->required();
  sub->add_option("--queries", options->queries, "the queries: .txt (one a line), or .jsonl/.csv/.parquet with --query_column")
      ->required();
  sub->add_option("--query_column", options->query_column, "the column of queries in a table file (default query)");
  sub->add_option("--candidates", options->candidates,
                  "JSON Lines, line i holding query i's candidates: {\"documents\": [\"...\", ...]}")
      ->required();
  sub->add_option("--output", options->output,
                  "the JSON Lines to write: {\"query\", \"ranking\": [{\"corpus_id\", \"score\", \"text\"}, ...]}, best first")
      ->required();
  sub->add_option("--max_seq_length", options->max_seq_length,
                  "truncate each pair to this many tokens (default: the model's positions, at most 512)");
  sub->add_option("--batch_size", options->batch_size, "pairs per forward pass (default 64)");
  return {sub, [options] {
            const std::int64_t pairs = train::rerank_files(*options);
            fmt::print("scored {} pairs into {}\n", pairs, options->output.string());
            return 0;
          }};
}

}  // namespace shmtrain::cli
