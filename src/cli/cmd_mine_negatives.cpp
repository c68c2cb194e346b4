// `shmtrain mine-negatives`: hard negatives for (anchor, positive) pairs with an embedding model,
// as sentence-transformers' util.mine_hard_negatives mines them (train/mine_negatives.hpp).
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "shmtrain/cli/commands.hpp"
#include "shmtrain/train/mine_negatives.hpp"

namespace shmtrain::cli {

Command add_mine_negatives_command(CLI::App& app) {
  auto o = std::make_shared<train::MineOptions>();
  CLI::App* sub = app.add_subcommand(
      "mine-negatives",
      "Mine hard negatives for (anchor, positive) pairs with an embedding model, as sentence-transformers' "
      "mine_hard_negatives does; write JSON Lines");
  sub->add_option("--model_name_or_path", o->model.folder,
                  "the embedding model: a sentence-transformers folder (its Pooling, Normalize and prompts) or a "
                  "Hugging Face model folder")
      ->required();
  sub->add_option("--dataset", o->dataset, "the (anchor, positive) pairs: .jsonl/.json, .csv or .parquet")->required();
  sub->add_option("--anchor_column_name", o->anchor_column, "the anchors' column (default: the first)");
  sub->add_option("--positive_column_name", o->positive_column, "the positives' column (default: the second)");
  sub->add_option("--corpus", o->corpus,
                  "more candidate passages: .txt (one a line) or a table with --corpus_column (the positives are "
                  "always candidates; duplicates are removed)");
  sub->add_option("--corpus_column", o->corpus_column, "the passages' column in a --corpus table (default text)");
  sub->add_option("--output", o->output, "the JSON Lines to write, with the dataset's column names")->required();
  sub->add_option("--output_format", o->output_format,
                  "triplet (default), n-tuple, n-tuple-scores, labeled-pair or labeled-list");
  sub->add_option("--num_negatives", o->selection.num_negatives, "negatives per (anchor, positive) (default 3)");
  sub->add_option("--range_min", o->selection.range_min, "skip this many of the closest candidates (default 0)");
  sub->add_option("--range_max", o->range_max,
                  "consider only the closest this many (default: range_min + num_negatives (x 10 with a margin or "
                  "max_score) + the most positives a query has)");
  sub->add_option("--max_score", o->selection.max_score, "drop candidates scoring above this");
  sub->add_option("--min_score", o->selection.min_score, "drop candidates scoring below this");
  sub->add_option("--absolute_margin", o->selection.absolute_margin,
                  "drop candidates within this of the query's smallest positive score (score + margin > positive)");
  sub->add_option("--relative_margin", o->selection.relative_margin,
                  "drop candidates above (1 - this) x the query's smallest positive score (0.05: at most 95%)");
  sub->add_option("--sampling_strategy", o->sampling_strategy,
                  "top (default: the closest left) or random (drawn from those left, seeded by --seed)");
  sub->add_option("--seed", o->selection.seed, "the random sampling's seed (default 42)");
  sub->add_flag("--include_positives", o->selection.include_positives,
                "keep the positives among the candidates (a full first-stage ranking; writes n-tuples)");
  sub->add_option("--query_prompt", o->query_prompt,
                  "put before each anchor (default: the folder's 'query' prompt, if any)");
  sub->add_option("--corpus_prompt", o->corpus_prompt,
                  "put before each passage (default: the folder's 'document', 'passage' or 'corpus' prompt, if any)");
  sub->add_option("--cache_folder", o->cache_folder,
                  "keep the embeddings here and reuse them in later runs (keyed by model folder, prompt and texts)");
  sub->add_option("--max_seq_length", o->model.max_seq_length,
                  "truncate each text to this many tokens (default: sentence_bert_config.json's, else the model's)");
  sub->add_option("--batch_size", o->batch_size, "texts per forward pass (default 32)");
  return {sub, [o] {
            const std::int64_t rows = train::mine_negatives_file(*o);
            fmt::print("wrote {} rows into {}\n", rows, o->output.string());
            return 0;
          }};
}

}  // namespace shmtrain::cli
