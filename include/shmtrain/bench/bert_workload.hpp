#pragma once
// The synthetic BERT workload the training benchmarks run (`shmtrain bench train`,
// bench/bench_bert_step): model shapes by preset name, random batches, and the step's
// floating-point operation count for GFLOP/s.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "shmtrain/data/batch.hpp"
#include "shmtrain/data/dataset.hpp"
#include "shmtrain/model/bert_config.hpp"

namespace shmtrain::bench {

// "base": bert-base-uncased (L12 H768 A12 I3072). "large": bert-large-uncased (L24 H1024 A16
// I4096). "small": google/bert_uncased_L-4_H-256_A-4
// ("BERT-mini", L4 H256 A4 I1024). "tiny": L2 H64 A2 I256 with a 1000-word vocabulary, for
// tests that run the benchmark end to end in seconds. "modernbert-base": answerdotai/ModernBERT-base
// (L22 H768 A12 I1152, GeGLU, rotary, sliding window 128 with every third layer global, 8,192
// positions); "mmbert-base": jhu-clsp/mmBERT-base (the same layers, both rotary thetas 160,000, a
// 256,000-token vocabulary); "modernbert-tiny": L3 H64 A2 I96, window 16. Two labels. Throws
// InputError.
model::BertConfig bench_preset(const std::string& name);

// The useful floating-point operations of one training step over `batch` sequences of `seq`
// tokens with the config's head (model/train_flops.hpp's count).
double step_flops(const model::BertConfig& config, std::int64_t batch, std::int64_t seq);

// `batch` sequences of `seq` random token ids (never the padding id), full attention mask,
// token type 0 then 1 for the second half (a sentence pair), random labels. The same `seed`
// gives the same batch.
data::Batch synthetic_batch(const model::BertConfig& config, std::int64_t batch, std::int64_t seq,
                            std::uint64_t seed);

// Real sequence lengths, one per line ('#' lines and blank ones skipped), each capped at
// max_length (a longer row is truncated, as the tokenizer would). Throws InputError naming
// the file and line of anything else.
std::vector<std::int32_t> read_lengths(const std::filesystem::path& file, std::int64_t max_length);

// One row per length: random token ids (never the padding id), token type 1 on the second
// half, full attention mask, random labels: what collate turns into padded or packed batches.
data::Dataset synthetic_dataset(const model::BertConfig& config, const std::vector<std::int32_t>& lengths,
                                std::uint64_t seed);

}  // namespace shmtrain::bench
