#include "shmtrain/model/train_flops.hpp"

#include <algorithm>
#include <map>

#include "architectures/architecture.hpp"
#include "shmtrain/data/dataset.hpp"
#include "shmtrain/tensor/relative_positions.hpp"

namespace shmtrain::model {
namespace {

// Keys query i sees in a sequence of `length`: all of them globally; within `window` positions on
// either side on a sliding layer.
double keys_of(std::int64_t i, std::int64_t length, std::int64_t window) {
  if (window < 0) return static_cast<double>(length);
  return static_cast<double>(std::min(length - 1, i + window) - std::max<std::int64_t>(0, i - window) + 1);
}

// Query-key pairs of one sequence.
double key_pairs(std::int64_t length, std::int64_t window) {
  if (window < 0 || 2 * window + 1 >= 2 * length) return static_cast<double>(length) * static_cast<double>(length);
  double pairs = 0;
  for (std::int64_t i = 0; i < length; ++i) pairs += keys_of(i, length, window);
  return pairs;
}

// DeBERTa: the relative table rows a sequence of `length` reaches (c2p's), and those a batch
// whose longest sequence has `length` projects (c2p's and p2c's, as Backbone::plan_relative).
double table_rows(const BertConfig& config, std::int64_t length) {
  const tensor::RelativePositions p{config.position_buckets, config.max_relative_distance()};
  return static_cast<double>(p.c2p_row(length - 1) - p.c2p_row(-(length - 1)) + 1);
}
double projected_rows(const BertConfig& config, std::int64_t length) {
  const tensor::RelativePositions p{config.position_buckets, config.max_relative_distance()};
  return static_cast<double>(std::max(p.c2p_row(length - 1), p.p2c_row(length - 1)) -
                             std::min(p.c2p_row(-(length - 1)), p.p2c_row(-(length - 1))) + 1);
}

double position_terms(const BertConfig& config) { return (config.c2p() ? 1.0 : 0.0) + (config.p2c() ? 1.0 : 0.0); }

// Forward multiply-adds x 2 of the head on `batch`.
double head_forward_flops(const BertConfig& config, const data::Batch& batch, double real_tokens) {
  const Architecture& a = architecture_of(config);
  const double h = static_cast<double>(config.hidden_size);
  const double outputs = static_cast<double>(config.head_outputs());
  switch (config.head) {
    case ModelHead::kSequenceClassification:
    case ModelHead::kMultipleChoice:
      return static_cast<double>(batch.batch) * 2.0 * (h * h + h * outputs);
    case ModelHead::kQuestionAnswering:
    case ModelHead::kTokenClassification:
      return real_tokens * 2.0 * ((a.token_heads_use_pooler ? h * h : 0.0) + h * outputs);
    case ModelHead::kSentenceEmbedding:
      return 0.0;  // pooling and the loss: no product of the model's own
    case ModelHead::kMaskedLm: {
      const auto masked = static_cast<double>(std::count_if(
          batch.labels.begin(), batch.labels.end(), [](std::int32_t l) { return l != data::kIgnoredLabel; }));
      return masked * 2.0 * (h * h + h * static_cast<double>(config.vocab_size));
    }
  }
  return 0.0;
}

}  // namespace

bool last_layer_pooled(const BertConfig& config) {
  const bool reads_first_row =
      config.head == ModelHead::kSequenceClassification || config.head == ModelHead::kMultipleChoice;
  return reads_first_row && config.classifier_pooling != "mean" &&
         architecture_of(config).structure.attention == AttentionKind::kScaledDotProduct;
}

double sequence_train_flops(const BertConfig& config, std::int64_t length, bool pooled) {
  const double h = static_cast<double>(config.hidden_size);
  const double inter = static_cast<double>(config.intermediate_size);
  const double up = architecture_of(config).structure.feed_forward == FeedForward::kGeglu ? 2.0 : 1.0;
  const double tokens = static_cast<double>(length);
  // Per token: Q, K, V and the attention output (4 H x H), the feed-forward (H x I up, I x H down).
  const double per_token = h * (4 * h + (1.0 + up) * inter);
  double total = 0;
  if (config.projects_embeddings()) total += 2.0 * tokens * static_cast<double>(config.embedding_width()) * h;
  // Counted once per window: every global layer, and every sliding one, has the same count.
  std::map<std::int64_t, double> pairs_of_window;
  for (std::int64_t l = 0; l < config.num_hidden_layers; ++l) {
    const std::int64_t window = config.attention_window(l);
    if (pooled && l == config.num_hidden_layers - 1) {
      // Keys and values of every token; the first token's query, context, output and feed-forward.
      total += 2.0 * (tokens * 2 * h * h + per_token - 2 * h * h) + 2.0 * 2.0 * keys_of(0, length, window) * h;
      continue;
    }
    auto [at, fresh] = pairs_of_window.try_emplace(window, 0.0);
    if (fresh) at->second = key_pairs(length, window);
    total += 2.0 * tokens * per_token + 2.0 * 2.0 * at->second * h;
  }
  if (architecture_of(config).structure.attention == AttentionKind::kDisentangled) {
    total += static_cast<double>(config.num_hidden_layers) * position_terms(config) * 2.0 * tokens *
             table_rows(config, length) * h;
  }
  return 3.0 * total;
}

double batch_train_flops(const BertConfig& config, const data::Batch& batch) {
  const bool pooled = last_layer_pooled(config);
  double total = 0;
  double tokens = 0;
  std::int64_t longest = 0;
  for (std::int64_t b = 0; b < batch.batch; ++b) {
    const std::int64_t length = batch.real_length(b);
    total += sequence_train_flops(config, length, pooled);
    tokens += static_cast<double>(length);
    longest = std::max(longest, length);
  }
  const double h = static_cast<double>(config.hidden_size);
  if (architecture_of(config).structure.attention == AttentionKind::kDisentangled && longest > 0) {
    total += 3.0 * static_cast<double>(config.num_hidden_layers) * position_terms(config) * 2.0 *
             projected_rows(config, longest) * h * h;
  }
  return total + 3.0 * head_forward_flops(config, batch, tokens);
}

std::vector<tensor::LinearShape> layer_linear_shapes(const BertConfig& config, std::int64_t tokens) {
  const std::int64_t h = config.hidden_size;
  const std::int64_t up = architecture_of(config).structure.feed_forward == FeedForward::kGeglu ? 2 : 1;
  return {{tokens, h, 3 * h}, {tokens, h, h}, {tokens, h, up * config.intermediate_size},
          {tokens, config.intermediate_size, h}};
}

}  // namespace shmtrain::model
