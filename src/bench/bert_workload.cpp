#include "shmtrain/bench/bert_workload.hpp"

#include <random>

#include "shmtrain/common/error.hpp"

namespace shmtrain::bench {

model::BertConfig bench_preset(const std::string& name) {
  model::BertConfig config;  // the defaults are bert-base-uncased's
  if (name == "base") return config;
  if (name == "small") {
    config.num_hidden_layers = 4;
    config.hidden_size = 256;
    config.num_attention_heads = 4;
    config.intermediate_size = 1024;
    return config;
  }
  if (name == "tiny") {
    config.vocab_size = 1000;
    config.num_hidden_layers = 2;
    config.hidden_size = 64;
    config.num_attention_heads = 2;
    config.intermediate_size = 256;
    return config;
  }
  fail_input("preset '{}' is unknown: use base (BERT-base), small (L4 H256) or tiny (L2 H64, for tests)",
             name);
}

double step_flops(const model::BertConfig& config, std::int64_t batch, std::int64_t seq) {
  const double tokens = static_cast<double>(batch * seq);
  const double h = static_cast<double>(config.hidden_size);
  const double i = static_cast<double>(config.intermediate_size);
  const double linear = 2.0 * tokens * (4 * h * h + 2 * h * i);
  const double attention = 2.0 * 2.0 * static_cast<double>(batch) * static_cast<double>(seq * seq) * h;
  return 3.0 * (linear + attention) * static_cast<double>(config.num_hidden_layers);
}

data::Batch synthetic_batch(const model::BertConfig& config, std::int64_t batch, std::int64_t seq,
                            std::uint64_t seed) {
  data::Batch out;
  out.batch = batch;
  out.seq = seq;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> token(0, config.vocab_size - 2);
  std::uniform_int_distribution<std::int64_t> label(0, config.num_labels() - 1);
  for (std::int64_t i = 0; i < batch * seq; ++i) {
    std::int64_t id = token(rng);
    if (id >= config.pad_token_id) ++id;  // vocab_size - 1 ids, skipping the padding id
    out.input_ids.push_back(static_cast<std::int32_t>(id));
    out.token_type_ids.push_back(i % seq >= seq / 2 ? 1 : 0);
    out.attention_mask.push_back(1);
  }
  for (std::int64_t i = 0; i < batch; ++i) out.labels.push_back(static_cast<std::int32_t>(label(rng)));
  return out;
}

}  // namespace shmtrain::bench
