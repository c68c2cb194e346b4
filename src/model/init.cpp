#include "shmtrain/model/init.hpp"

#include <algorithm>
#include <functional>
#include <random>
#include <string>

#include "architectures/architecture.hpp"

namespace shmtrain::model {

void init_parameter(const ParamEntry& entry, std::span<float> params, const BertConfig& config,
                    std::uint64_t seed) {
  float* p = params.data() + entry.offset;
  const std::string_view name = entry.name;
  if (is_layer_norm_parameter(name)) {
    std::fill_n(p, entry.size, name.ends_with("weight") ? 1.0f : 0.0f);
    return;
  }
  if (name.ends_with("bias")) {
    std::fill_n(p, entry.size, 0.0f);
    return;
  }
  std::mt19937_64 rng(seed ^ std::hash<std::string_view>{}(name));
  std::normal_distribution<float> normal(0.0f, static_cast<float>(config.initializer_range));
  for (std::int64_t i = 0; i < entry.size; ++i) p[i] = normal(rng);
  // nn.Embedding(padding_idx=pad_token_id) zeroes that row: the word table's, and RoBERTa's
  // position table's too (its padding_idx is the same).
  const bool padded_positions = architecture_of(config).positions_from_ids &&
                                name == config.base_prefix() + "embeddings.position_embeddings.weight";
  if (name == config.base_prefix() + "embeddings.word_embeddings.weight" || padded_positions) {
    std::fill_n(p + config.pad_token_id * config.hidden_size, config.hidden_size, 0.0f);
  }
}

void init_all_parameters(const ParamTable& table, std::span<float> params, const BertConfig& config,
                         std::uint64_t seed) {
  for (const ParamEntry& e : table.entries()) init_parameter(e, params, config, seed);
}

}  // namespace shmtrain::model
