#pragma once
// Parameter initialisation as Hugging Face's BertPreTrainedModel._init_weights (and
// DistilBertPreTrainedModel's, the same rules): Linear and Embedding weights ~
// Normal(0, initializer_range), biases 0, the padding row of the word embeddings 0, LayerNorm
// weight 1 and bias 0.
#include <cstdint>
#include <span>

#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"

namespace shmtrain::model {

// Initialises one parameter in place; `seed` and the entry's name decide its values, so a
// parameter's initial values do not depend on which others are initialised, and they are the
// same whichever compiler and standard library built shmtrain (no std::hash, no std::
// distribution; init.cpp spells out its generator).
void init_parameter(const ParamEntry& entry, std::span<float> params, const BertConfig& config,
                    std::uint64_t seed);

void init_all_parameters(const ParamTable& table, std::span<float> params, const BertConfig& config,
                         std::uint64_t seed);

}  // namespace shmtrain::model
