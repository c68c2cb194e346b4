#include "masked_lm_head.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "architectures/architecture.hpp"
#include "fit.hpp"
#include "shmtrain/data/dataset.hpp"
#include "shmtrain/tensor/linear.hpp"
#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain::model {

MaskedLmHead::MaskedLmHead(const BertConfig& config, const ParamTable& table, std::span<float> params,
                           std::span<float> grads)
    : hidden_(config.hidden_size),
      vocab_(config.vocab_size),
      transform_(config, masked_lm_block(config), table, params, grads) {
  const Architecture& arch = architecture_of(config);
  const std::int64_t word = table.at(std::string(arch.base_prefix) + arch.embeddings.word + ".weight").offset;
  embeddings_ = params.data() + word;
  d_embeddings_ = grads.data() + word;
  const ParamEntry* bias = config.decoder_bias ? &table.at(arch.masked_lm.bias) : nullptr;
  bias_ = bias == nullptr ? nullptr : params.data() + bias->offset;
  d_bias_ = bias == nullptr ? nullptr : grads.data() + bias->offset;
}

float MaskedLmHead::forward(const float* hidden, const data::Batch& batch, const StepContext&) {
  batch_ = &batch;
  const std::int64_t h = hidden_;
  const std::int64_t v = vocab_;
  labelled_.clear();
  for (std::size_t i = 0; i < batch.labels.size(); ++i) {
    if (batch.labels[i] != data::kIgnoredLabel) labelled_.push_back(static_cast<std::int64_t>(i));
  }
  const auto m = static_cast<std::int64_t>(labelled_.size());
  fit(row_losses_, batch.batch * 3);
  std::fill(row_losses_.begin(), row_losses_.end(), 0.0f);
  if (batch.labels.empty()) return std::numeric_limits<float>::quiet_NaN();
  if (m == 0) return 0.0f;  // PyTorch gives NaN; a batch without labelled tokens adds nothing

  fit(gathered_, m * h);
  for (std::int64_t r = 0; r < m; ++r) std::copy_n(hidden + labelled_[r] * h, h, gathered_.data() + r * h);
  transformed_ = transform_.forward(gathered_.data(), m);
  fit(probs_, m * v);
  tensor::linear_forward(probs_.data(), transformed_, embeddings_, bias_, m, h, v);
  // Softmax and cross-entropy per labelled token, each row by one thread, in double.
  fit(token_loss_, m);
  fit(token_hit_, m);
  tensor::parallel_blocks(m, 4, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      float* z = probs_.data() + r * v;
      const float* top = std::max_element(z, z + v);  // the first of equal maxima, as torch's argmax
      const float max = *top;
      double sum = 0;
      for (std::int64_t k = 0; k < v; ++k) sum += std::exp(static_cast<double>(z[k] - max));
      const std::int32_t label = batch.labels[static_cast<std::size_t>(labelled_[r])];
      token_loss_[r] = std::log(sum) - static_cast<double>(z[label] - max);
      token_hit_[r] = top - z == label;
      const double inverse = 1.0 / sum;
      for (std::int64_t k = 0; k < v; ++k) z[k] = static_cast<float>(std::exp(static_cast<double>(z[k] - max)) * inverse);
    }
  });
  double loss = 0;
  std::int64_t b = 0;
  for (std::int64_t r = 0; r < m; ++r) {
    loss += token_loss_[r];
    while (labelled_[r] >= batch.row_begin(b) + batch.row_length(b)) ++b;
    row_losses_[b * 3] += static_cast<float>(token_loss_[r]);
    row_losses_[b * 3 + 1] += 1.0f;
    row_losses_[b * 3 + 2] += static_cast<float>(token_hit_[r]);
  }
  return static_cast<float>(loss / static_cast<double>(m)) * batch.loss_weight;
}

void MaskedLmHead::backward(float* dhidden, float loss_scale) {
  const data::Batch& batch = *batch_;
  const std::int64_t h = hidden_;
  const std::int64_t v = vocab_;
  const auto m = static_cast<std::int64_t>(labelled_.size());
  std::fill_n(dhidden, batch.tokens() * h, 0.0f);
  if (m == 0) return;
  const float scale = loss_scale * batch.loss_weight / static_cast<float>(m);
  tensor::parallel_blocks(m, 4, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      float* d = probs_.data() + r * v;
      d[batch.labels[static_cast<std::size_t>(labelled_[r])]] -= 1.0f;
      for (std::int64_t k = 0; k < v; ++k) d[k] *= scale;
    }
  });
  fit(dtransformed_, m * h);
  fit(dgathered_, m * h);
  tensor::linear_backward(dtransformed_.data(), d_embeddings_, d_bias_, probs_.data(), transformed_, embeddings_, m,
                          h, v);
  transform_.backward(dgathered_.data(), dtransformed_.data());
  for (std::int64_t r = 0; r < m; ++r) std::copy_n(dgathered_.data() + r * h, h, dhidden + labelled_[r] * h);
}

}  // namespace shmtrain::model
