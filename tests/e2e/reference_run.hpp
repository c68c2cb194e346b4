#pragma once
// A PyTorch reference fixture (tests/fixtures/reference_tiny, or a classification model of
// tests/fixtures/reference_heads) as a user's run would see it: a model folder (config.json,
// model.safetensors and a vocab.txt of the fixture's vocab_size ids, or for RoBERTa-family
// fixtures a tokenizer.json with <pad> = 1, for ModernBERT ones a tokenizer.json with its
// specials at the top of the vocabulary and its template post-processor, for DeBERTa ones one
// with [PAD] 0, [CLS] 1, [SEP] 2, [UNK] 3) and its 20 batches
// as pre-tokenized JSON Lines, in training order.
#include <filesystem>
#include <string>
#include <vector>

#include "support/test_support.hpp"

namespace shmtrain::testing {

struct ReferenceRun {
  std::filesystem::path model;       // the model folder
  std::filesystem::path train_file;  // reference_tiny: 160 rows, batch i is rows 8i..8i+7
  std::vector<double> losses;        // PyTorch's loss at each of the 20 steps
};

// `fixture`: a folder of tests/fixtures ("reference_heads/distilbert_cls").
ReferenceRun write_reference_run(const TempDir& dir, const std::string& fixture = "reference_tiny");

// A config.json of a tiny RoBERTa (2 layers, hidden 32) over the vocabulary of
// tests/fixtures/tokenizers/roberta_bpe (and <mask>), for runs from random weights; dropout 0
// unless `dropout`. Returns its path (dir/config.json).
std::filesystem::path write_tiny_roberta_config(const TempDir& dir, bool dropout = false);

// `train` flags of the PyTorch reference's settings for 4 ranks of 2 rows (global batch 8, 20
// steps, every loss logged), no evaluation, into `output_dir`: the data-parallel and MPI tests' run.
std::string four_rank_reference_flags(const ReferenceRun& run, const std::filesystem::path& output_dir);

// Trains `run`'s model through the binary with the PyTorch reference's settings (its rows in
// order, global batch 4 on `workers` workers, lr 1e-3, weight decay 0.01, constant schedule, one
// epoch) into `out`, and expects each logged loss within 1e-4 relative of PyTorch's. Returns the
// largest relative difference (a failed run is a gtest failure and returns infinity).
double train_like_the_reference(const ReferenceRun& run, const std::filesystem::path& out, int workers);

// A task command of the Hugging Face example scripts (run_glue, run_qa, run_ner): its arguments,
// the head class config.json must name, and a file it must write.
struct ScriptTask {
  std::string name, arguments, head, predictions;
};

// Trains each task from random weights (`config`, a config.json, and the tokenizer folder
// `tokenizer`) on 1 and then 2 workers, global batch 8, and expects the same logged losses on
// both, the head in config.json, the predictions file and every file of `also_written` in the
// output folder.
void expect_tasks_train_alike(const TempDir& dir, const std::filesystem::path& config, const std::string& tokenizer,
                              const std::vector<ScriptTask>& tasks, const std::vector<std::string>& also_written = {});

// Expects `losses` (metric_by_step's) step for step within 1e-5 relative of `expected`.
void expect_same_losses(const std::vector<std::pair<long, double>>& losses,
                        const std::vector<std::pair<long, double>>& expected);

// The "loss" (or another key) of each record of a metrics.jsonl that has it, by step.
std::vector<std::pair<long, double>> metric_by_step(const std::filesystem::path& metrics, const std::string& key);

// Each logged training loss of a metrics.jsonl, in order (metric_by_step's values).
std::vector<double> logged_losses(const std::filesystem::path& metrics);

// The weights in two model.safetensors agree within 1e-5 as the norm of the whole model's
// difference relative to its norm, and elementwise within 1e-4 (gtest expectations).
void expect_same_weights(const std::filesystem::path& actual, const std::filesystem::path& expected);

}  // namespace shmtrain::testing
