#include "shmtrain/model/bert_classifier.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/embedding.hpp"
#include "shmtrain/tensor/layernorm.hpp"
#include "shmtrain/tensor/linear.hpp"
#include "shmtrain/tensor/loss.hpp"
#include "shmtrain/tensor/tanh.hpp"

namespace shmtrain {
namespace {

// Dropout sites: 0 the embeddings, 1 + 3l .. 3 + 3l layer l, then the classifier's input.
constexpr std::uint64_t kEmbeddingSite = 0;
std::uint64_t layer_site(std::int64_t layer, int k) { return 1 + 3 * static_cast<std::uint64_t>(layer) + k; }

void fit(std::vector<float>& v, std::int64_t n) {
  if (static_cast<std::int64_t>(v.size()) != n) v.resize(static_cast<std::size_t>(n));
}

}  // namespace

BertForSequenceClassification::BertForSequenceClassification(const BertConfig& config, const ParamTable& table,
                                                             std::span<float> params, std::span<float> grads)
    : config_(config), table_(table), params_(params), grads_(grads) {
  if (static_cast<std::int64_t>(params.size()) < table.count() ||
      static_cast<std::int64_t>(grads.size()) < table.count()) {
    throw Error(fmt::format("parameter arenas hold {} and {} floats; the model needs {}", params.size(),
                            grads.size(), table.count()));
  }
  layers_.resize(static_cast<std::size_t>(config.num_hidden_layers));
  for (std::int64_t l = 0; l < config.num_hidden_layers; ++l) {
    layer_weights_.push_back(layer_params(table, params, l));
    layer_grads_.push_back(layer_params(table, grads, l));
  }
}

LayerParams BertForSequenceClassification::layer_params(const ParamTable& table, std::span<float> arena,
                                                        std::int64_t layer) {
  const std::string p = fmt::format("bert.encoder.layer.{}.", layer);
  auto at = [&](const char* name) { return arena.data() + table.at(p + name).offset; };
  return {at("attention.self.query.weight"),   at("attention.self.query.bias"),
          at("attention.output.dense.weight"), at("attention.output.dense.bias"),
          at("attention.output.LayerNorm.weight"), at("attention.output.LayerNorm.bias"),
          at("intermediate.dense.weight"),     at("intermediate.dense.bias"),
          at("output.dense.weight"),           at("output.dense.bias"),
          at("output.LayerNorm.weight"),       at("output.LayerNorm.bias")};
}

void BertForSequenceClassification::set_bf16_weights(std::span<const bf16> weights16) {
  uses_bf16_ = !weights16.empty();
  if (uses_bf16_ && static_cast<std::int64_t>(weights16.size()) < table_.count()) {
    throw Error(fmt::format("bf16 weight arena holds {} values; the model needs {}", weights16.size(), table_.count()));
  }
  for (std::int64_t l = 0; l < config_.num_hidden_layers; ++l) {
    LayerWeightsBf16& w16 = layer_weights_[l].weights16;
    if (!uses_bf16_) {
      w16 = {};
      continue;
    }
    auto at = [&](const float* p) { return weights16.data() + (p - params_.data()); };
    const LayerParams& w = layer_weights_[l];
    w16 = {at(w.qkv_w), at(w.attn_out_w), at(w.inter_w), at(w.out_w)};
  }
}

LayerDropout BertForSequenceClassification::layer_dropout(std::int64_t layer) const {
  if (!context_.train) return {};
  auto key = [&](int k) { return dropout_key(context_.seed, context_.rank, context_.step, layer_site(layer, k)); };
  return {static_cast<float>(config_.hidden_dropout_prob), static_cast<float>(config_.attention_probs_dropout_prob),
          key(0), key(1), key(2)};
}

LayerDims BertForSequenceClassification::dims() const {
  return {batch_size_, seq_, config_.hidden_size, config_.num_attention_heads, config_.intermediate_size,
          static_cast<float>(config_.layer_norm_eps)};
}

void BertForSequenceClassification::resize(std::int64_t batch, std::int64_t seq) {
  batch_size_ = batch;
  seq_ = seq;
  const std::int64_t n = batch * seq;
  const std::int64_t h = config_.hidden_size;
  fit(mask_add_, n);
  for (auto* v : {&emb_sum_, &emb_out_}) fit(*v, n * h);
  for (auto* v : {&emb_mean_, &emb_rstd_}) fit(*v, n);
  for (LayerCache& c : layers_) c.resize(dims(), uses_bf16_);
  scratch_.resize(dims(), uses_bf16_);
  for (auto* v : {&cls_, &pooled_pre_, &pooled_, &pooled_dropped_, &dpooled_}) fit(*v, batch * h);
  for (auto* v : {&logits_, &probs_}) fit(*v, batch * config_.num_labels());
}

float BertForSequenceClassification::forward(const Batch& batch, const StepContext& context) {
  batch_ = &batch;
  context_ = context;
  resize(batch.batch, batch.seq);
  const std::int64_t b_size = batch.batch;
  const std::int64_t t = batch.seq;
  const std::int64_t n = b_size * t;
  const std::int64_t h = config_.hidden_size;
  const std::int64_t labels = config_.num_labels();
  auto param = [&](const char* name) { return params_.data() + table_.at(name).offset; };

  // HF get_extended_attention_mask: (1 - mask) * float32 lowest, added to the scores.
  for (std::int64_t i = 0; i < n; ++i) {
    mask_add_[i] = batch.attention_mask[i] != 0 ? 0.0f : std::numeric_limits<float>::lowest();
  }
  embedding_forward(emb_sum_.data(), batch.input_ids.data(), batch.token_type_ids.data(),
                    param("bert.embeddings.word_embeddings.weight"), param("bert.embeddings.position_embeddings.weight"),
                    param("bert.embeddings.token_type_embeddings.weight"), b_size, t, h);
  layernorm_forward(emb_out_.data(), emb_mean_.data(), emb_rstd_.data(), emb_sum_.data(),
                    param("bert.embeddings.LayerNorm.weight"), param("bert.embeddings.LayerNorm.bias"), n, h,
                    static_cast<float>(config_.layer_norm_eps));
  const float hidden_p = context.train ? static_cast<float>(config_.hidden_dropout_prob) : 0.0f;
  dropout_forward(emb_out_.data(), emb_out_.data(), n * h, hidden_p,
                  dropout_key(context.seed, context.rank, context.step, kEmbeddingSite));

  const float* x = emb_out_.data();
  for (std::int64_t l = 0; l < config_.num_hidden_layers; ++l) {
    encoder_layer_forward(layers_[l], x, mask_add_.data(), layer_weights_[l], dims(), layer_dropout(l));
    x = layers_[l].ln2_out.data();
  }

  for (std::int64_t b = 0; b < b_size; ++b) std::copy_n(x + b * t * h, h, cls_.data() + b * h);
  linear_forward(pooled_pre_.data(), cls_.data(), param("bert.pooler.dense.weight"), param("bert.pooler.dense.bias"),
                 b_size, h, h);
  tanh_forward(pooled_.data(), pooled_pre_.data(), b_size * h);
  dropout_forward(pooled_dropped_.data(), pooled_.data(), b_size * h, hidden_p,
                  dropout_key(context.seed, context.rank, context.step, layer_site(config_.num_hidden_layers, 0)));
  linear_forward(logits_.data(), pooled_dropped_.data(), param("classifier.weight"), param("classifier.bias"), b_size,
                 h, labels);

  if (config_.is_regression()) {
    if (batch.targets.empty()) return std::numeric_limits<float>::quiet_NaN();
    return mse_forward(logits_.data(), batch.targets.data(), b_size);
  }
  if (batch.labels.empty()) return std::numeric_limits<float>::quiet_NaN();
  return cross_entropy_forward(probs_.data(), logits_.data(), batch.labels.data(), b_size, labels);
}

void BertForSequenceClassification::backward(float loss_scale, const GradientsFinal& gradients_final) {
  const Batch& batch = *batch_;
  const std::int64_t b_size = batch_size_;
  const std::int64_t t = seq_;
  const std::int64_t n = b_size * t;
  const std::int64_t h = config_.hidden_size;
  const std::int64_t labels = config_.num_labels();
  auto param = [&](const char* name) { return params_.data() + table_.at(name).offset; };
  auto grad = [&](const char* name) { return grads_.data() + table_.at(name).offset; };
  auto done_from = [&](std::int64_t offset) {
    if (gradients_final) gradients_final(offset);
  };

  std::vector<float>& dlogits = probs_;  // the loss backward overwrites the cached softmax in place
  if (config_.is_regression()) {
    mse_backward(dlogits.data(), logits_.data(), batch.targets.data(), b_size, loss_scale);
  } else {
    cross_entropy_backward(dlogits.data(), probs_.data(), batch.labels.data(), b_size, labels, loss_scale);
  }
  std::vector<float>& dpooled = dpooled_;
  linear_backward(dpooled.data(), grad("classifier.weight"), grad("classifier.bias"), dlogits.data(),
                  pooled_dropped_.data(), param("classifier.weight"), b_size, h, labels);
  const float hidden_p = context_.train ? static_cast<float>(config_.hidden_dropout_prob) : 0.0f;
  dropout_backward(dpooled.data(), dpooled.data(), b_size * h, hidden_p,
                   dropout_key(context_.seed, context_.rank, context_.step, layer_site(config_.num_hidden_layers, 0)));
  tanh_backward(dpooled.data(), dpooled.data(), pooled_.data(), b_size * h);
  fit(dhidden_a_, n * h);
  fit(dhidden_b_, n * h);
  std::fill(dhidden_a_.begin(), dhidden_a_.end(), 0.0f);
  std::vector<float>& dcls = pooled_pre_;  // free once tanh's backward (which reads pooled_) is done
  linear_backward(dcls.data(), grad("bert.pooler.dense.weight"), grad("bert.pooler.dense.bias"), dpooled.data(),
                  cls_.data(), param("bert.pooler.dense.weight"), b_size, h, h);
  for (std::int64_t b = 0; b < b_size; ++b) std::copy_n(dcls.data() + b * h, h, dhidden_a_.data() + b * t * h);
  done_from(table_.at("bert.pooler.dense.weight").offset);

  float* dy = dhidden_a_.data();
  float* dx = dhidden_b_.data();
  for (std::int64_t l = config_.num_hidden_layers - 1; l >= 0; --l) {
    const float* x = l == 0 ? emb_out_.data() : layers_[l - 1].ln2_out.data();
    encoder_layer_backward(dx, dy, layers_[l], x, layer_weights_[l], layer_grads_[l], scratch_, dims(),
                           layer_dropout(l));
    std::swap(dx, dy);
    done_from(table_.at(fmt::format("bert.encoder.layer.{}.attention.self.query.weight", l)).offset);
  }

  dropout_backward(dy, dy, n * h, hidden_p, dropout_key(context_.seed, context_.rank, context_.step, kEmbeddingSite));
  layernorm_backward(dx, grad("bert.embeddings.LayerNorm.weight"), grad("bert.embeddings.LayerNorm.bias"), dy,
                     emb_sum_.data(), param("bert.embeddings.LayerNorm.weight"), emb_mean_.data(), emb_rstd_.data(), n,
                     h);
  embedding_backward(grad("bert.embeddings.word_embeddings.weight"), grad("bert.embeddings.position_embeddings.weight"),
                     grad("bert.embeddings.token_type_embeddings.weight"), dx, batch.input_ids.data(),
                     batch.token_type_ids.data(), b_size, t, h, config_.pad_token_id);
  done_from(0);
}

}  // namespace shmtrain
