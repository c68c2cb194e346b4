#include "shmtrain/bench/bert_workload.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <random>
#include <string_view>

#include "shmtrain/common/error.hpp"
#include "shmtrain/model/hf_config.hpp"
#include "shmtrain/model/train_flops.hpp"

namespace shmtrain::bench {

model::BertConfig bench_preset(const std::string& name) {
  model::BertConfig config;  // the defaults are bert-base-uncased's
  if (name == "base") return config;
  if (name == "large") {
    config.num_hidden_layers = 24;
    config.hidden_size = 1024;
    config.num_attention_heads = 16;
    config.intermediate_size = 4096;
    return config;
  }
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
  if (name == "modernbert-base" || name == "modernbert-tiny") {
    // ModernBertConfig's defaults are ModernBERT-base's (L22 H768 A12 I1152, window 128,
    // global every third layer, 8,192 positions).
    model::BertConfig modernbert = model::parse_hf_config(R"({"model_type": "modernbert"})", "preset " + name);
    if (name == "modernbert-tiny") {
      modernbert.vocab_size = 1000;
      modernbert.pad_token_id = 999;
      modernbert.num_hidden_layers = 3;
      modernbert.hidden_size = 64;
      modernbert.num_attention_heads = 2;
      modernbert.intermediate_size = 96;
      modernbert.local_attention = 16;
    }
    modernbert.id2label = {"LABEL_0", "LABEL_1"};
    return modernbert;
  }
  if (name == "mmbert-base") {
    // jhu-clsp/mmBERT-base's config.json: ModernBERT-base's layers, both rotary thetas 160,000,
    // and Gemma's 256,000-token vocabulary (197M of its parameters in the embedding).
    model::BertConfig mmbert = model::parse_hf_config(
        R"({"model_type": "modernbert", "vocab_size": 256000, "hidden_size": 768, "num_hidden_layers": 22,
            "num_attention_heads": 12, "intermediate_size": 1152, "max_position_embeddings": 8192,
            "global_rope_theta": 160000.0, "local_rope_theta": 160000.0, "local_attention": 128,
            "global_attn_every_n_layers": 3, "pad_token_id": 0, "bos_token_id": 2, "eos_token_id": 1,
            "cls_token_id": 2, "sep_token_id": 1})",
        "preset " + name);
    mmbert.id2label = {"LABEL_0", "LABEL_1"};
    return mmbert;
  }
  if (name == "deberta-v3-base" || name == "deberta-v3-tiny") {
    // microsoft/deberta-v3-base's config.json (L12 H768 A12 I3072, 128,100 tokens, 256 position
    // buckets, c2p and p2c through the shared projections, no absolute positions or token types).
    model::BertConfig deberta = model::parse_hf_config(
        R"({"model_type": "deberta-v2", "vocab_size": 128100, "hidden_size": 768, "num_hidden_layers": 12,
            "num_attention_heads": 12, "intermediate_size": 3072, "max_position_embeddings": 512,
            "relative_attention": true, "position_buckets": 256, "max_relative_positions": -1,
            "pos_att_type": "p2c|c2p", "share_att_key": true, "norm_rel_ebd": "layer_norm",
            "position_biased_input": false, "type_vocab_size": 0, "layer_norm_eps": 1e-7})",
        "preset " + name);
    if (name == "deberta-v3-tiny") {
      deberta.vocab_size = 1000;
      deberta.num_hidden_layers = 2;
      deberta.hidden_size = 64;
      deberta.pooler_hidden_size = 64;
      deberta.num_attention_heads = 2;
      deberta.intermediate_size = 256;
      deberta.position_buckets = 16;
    }
    deberta.id2label = {"LABEL_0", "LABEL_1"};
    return deberta;
  }
  fail_input(
      "preset '{}' is unknown: use base (BERT-base), large (BERT-large), small (L4 H256), tiny (L2 H64, for "
      "tests), modernbert-base (ModernBERT-base, L22 H768), mmbert-base (mmBERT-base: ModernBERT-base with a "
      "256,000-token vocabulary), modernbert-tiny (L3 H64, for tests), deberta-v3-base "
      "(DeBERTa-v3-base, L12 H768) or deberta-v3-tiny (L2 H64, for tests)",
      name);
}

double step_flops(const model::BertConfig& config, std::int64_t batch, std::int64_t seq) {
  return model::batch_train_flops(config, synthetic_batch(config, batch, seq, 0));
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

std::vector<std::int32_t> read_lengths(const std::filesystem::path& file, std::int64_t max_length) {
  std::ifstream in(file);
  if (!in) fail_input("{}: cannot open the lengths file", file.string());
  std::vector<std::int32_t> lengths;
  std::string line;
  for (std::int64_t number = 1; std::getline(in, line); ++number) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::int64_t value = 0;
    const char* end = line.data() + line.size();
    const auto [rest, error] = std::from_chars(line.data() + first, end, value);
    if (error != std::errc() ||
        std::string_view(rest, end).find_first_not_of(" \t\r") != std::string_view::npos || value < 1 ||
        value > 1'000'000) {
      fail_input("{}:{}: '{}' is not a sequence length (a whole number from 1)", file.string(), number, line);
    }
    lengths.push_back(static_cast<std::int32_t>(std::min(value, max_length)));
  }
  if (lengths.empty()) fail_input("{}: no lengths in the file", file.string());
  return lengths;
}

data::Dataset synthetic_dataset(const model::BertConfig& config, const std::vector<std::int32_t>& lengths,
                                std::uint64_t seed) {
  data::Dataset dataset;
  dataset.source = "the synthetic dataset";
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> token(0, config.vocab_size - 2);
  std::uniform_int_distribution<std::int64_t> label(0, config.num_labels() - 1);
  for (const std::int32_t length : lengths) {
    data::Example example;
    for (std::int32_t t = 0; t < length; ++t) {
      std::int64_t id = token(rng);
      if (id >= config.pad_token_id) ++id;
      example.input_ids.push_back(static_cast<std::int32_t>(id));
      example.token_type_ids.push_back(t >= length / 2 ? 1 : 0);
      example.attention_mask.push_back(1);
    }
    example.label = static_cast<std::int32_t>(label(rng));
    dataset.examples.push_back(std::move(example));
  }
  return dataset;
}

}  // namespace shmtrain::bench
