#include "shmtrain/model/train_flops.hpp"

#include <algorithm>
#include <map>

#include "architectures/architecture.hpp"
#include "shmtrain/tensor/relative_positions.hpp"

namespace shmtrain::model {
namespace {

// Query-key pairs of one sequence: length^2 globally; with a window, each query's keys within
// `window` positions on either side.
double key_pairs(std::int64_t length, std::int64_t window) {
  if (window < 0 || 2 * window + 1 >= 2 * length) return static_cast<double>(length) * static_cast<double>(length);
  double pairs = 0;
  for (std::int64_t i = 0; i < length; ++i) {
    pairs += static_cast<double>(std::min(length - 1, i + window) - std::max<std::int64_t>(0, i - window) + 1);
  }
  return pairs;
}

}  // namespace

double sequence_train_flops(const BertConfig& config, std::int64_t length) {
  const double h = static_cast<double>(config.hidden_size);
  const double inter = static_cast<double>(config.intermediate_size);
  const double up = architecture_of(config).structure.feed_forward == FeedForward::kGeglu ? 2.0 : 1.0;
  const double linear = 2.0 * static_cast<double>(length) * (4 * h * h + (1.0 + up) * h * inter);
  double total = 0;
  // Counted once per window: every global layer, and every sliding one, has the same count.
  std::map<std::int64_t, double> pairs_of_window;
  for (std::int64_t l = 0; l < config.num_hidden_layers; ++l) {
    const std::int64_t window = config.attention_window(l);
    auto [at, fresh] = pairs_of_window.try_emplace(window, 0.0);
    if (fresh) at->second = key_pairs(length, window);
    total += linear + 2.0 * 2.0 * at->second * h;
  }
  if (architecture_of(config).structure.attention == AttentionKind::kDisentangled) {
    // DeBERTa's position terms: per term, each query (c2p) or key (p2c) against the table rows
    // the sequence reaches, a (length x rows x hidden) product. The tables' projections, once
    // per batch, are not a sequence's.
    const tensor::RelativePositions p{config.position_buckets, config.max_relative_distance()};
    const double rows = static_cast<double>(p.c2p_row(length - 1) - p.c2p_row(-(length - 1)) + 1);
    const double terms = (config.c2p() ? 1.0 : 0.0) + (config.p2c() ? 1.0 : 0.0);
    total += static_cast<double>(config.num_hidden_layers) * terms * 2.0 * static_cast<double>(length) * rows * h;
  }
  return 3.0 * total;
}

}  // namespace shmtrain::model
