#pragma once
// The floating-point operations of training the encoder on one sequence, as the benchmarks
// and the run's logged GFLOP/s count them: multiply-adds x 2 of the linears (Q/K/V, attention
// output, the feed-forward's two; GeGLU's first is 2 x intermediate wide) and of the two
// attention products over the keys each query actually sees (every key of the sequence on a
// global layer; at most 2 x window + 1 on a sliding one), forward 1x and backward 2x. The
// embeddings, element-wise work and heads are not counted.
#include <cstdint>

#include "shmtrain/model/bert_config.hpp"

namespace shmtrain::model {

double sequence_train_flops(const BertConfig& config, std::int64_t length);

}  // namespace shmtrain::model
