#include "backbone.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "architectures/architecture.hpp"
#include "fit.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/embedding.hpp"
#include "shmtrain/tensor/layernorm.hpp"
#include "shmtrain/tensor/word_position_embedding.hpp"

namespace shmtrain::model {
namespace {

constexpr std::uint64_t kEmbeddingSite = 0;

}  // namespace

Backbone::Backbone(const BertConfig& config, const ParamTable& table, std::span<float> params,
                   std::span<float> grads)
    : config_(config), table_(table), params_(params), grads_(grads), prefix_(config.base_prefix()) {
  if (static_cast<std::int64_t>(params.size()) < table.count() ||
      static_cast<std::int64_t>(grads.size()) < table.count()) {
    throw Error(fmt::format("parameter arenas hold {} and {} floats; the model needs {}", params.size(),
                            grads.size(), table.count()));
  }
  layers_.resize(static_cast<std::size_t>(config.num_hidden_layers));
  const Architecture& arch = architecture_of(config);
  for (std::int64_t l = 0; l < config.num_hidden_layers; ++l) {
    layer_weights_.push_back(layer_params(params, l));
    layer_grads_.push_back(layer_params(grads, l));
    layer_begin_.push_back(
        table.at(fmt::format(fmt::runtime(arch.layer_prefix), l) + arch.layer.query + ".weight").offset);
  }
}

LayerParams Backbone::layer_params(std::span<float> arena, std::int64_t layer) const {
  const Architecture& arch = architecture_of(config_);
  const LayerModules& m = arch.layer;
  const std::string p = fmt::format(fmt::runtime(arch.layer_prefix), layer);
  auto w = [&](const char* module) { return arena.data() + table_.at(p + module + ".weight").offset; };
  auto b = [&](const char* module) { return arena.data() + table_.at(p + module + ".bias").offset; };
  // The Q/K/V weights and biases are adjacent: query's pointer is the fused linear's.
  return {w(m.query),          b(m.query),          w(m.attention_output), b(m.attention_output),
          w(m.attention_norm), b(m.attention_norm), w(m.intermediate),     b(m.intermediate),
          w(m.output),         b(m.output),         w(m.output_norm),      b(m.output_norm)};
}

void Backbone::set_bf16_weights(std::span<const tensor::bf16> weights16) {
  uses_bf16_ = !weights16.empty();
  if (uses_bf16_ && static_cast<std::int64_t>(weights16.size()) < table_.count()) {
    throw Error(fmt::format("bf16 weight arena holds {} values; the model needs {}", weights16.size(),
                            table_.count()));
  }
  for (LayerParams& w : layer_weights_) {
    if (!uses_bf16_) {
      w.weights16 = {};
      continue;
    }
    auto at = [&](const float* p) { return weights16.data() + (p - params_.data()); };
    w.weights16 = {at(w.qkv_w), at(w.attn_out_w), at(w.inter_w), at(w.out_w)};
  }
}

LayerDropout Backbone::layer_dropout(std::int64_t layer) const {
  LayerDropout drop;
  drop.rows = &*row_dropout_;
  if (!context_.train) return drop;
  drop.hidden_p = static_cast<float>(config_.hidden_dropout_prob);
  drop.attention_p = static_cast<float>(config_.attention_probs_dropout_prob);
  drop.attention_output_p = architecture_of(config_).attention_output_dropout ? drop.hidden_p : 0.0f;
  drop.attention_output_site = layer_site(layer, 1);
  drop.output_site = layer_site(layer, 2);
  if (drop.attention_p > 0.0f) drop.attention_keys = row_dropout_->keys(layer_site(layer, 0));
  return drop;
}

float Backbone::embedding_dropout_p() const {
  return context_.train ? static_cast<float>(config_.hidden_dropout_prob) : 0.0f;
}

LayerDims Backbone::dims() const {
  return {batch_size_,
          seq_,
          config_.hidden_size,
          config_.num_attention_heads,
          config_.intermediate_size,
          static_cast<float>(config_.layer_norm_eps),
          offsets_};
}

const float* Backbone::param(const std::string& suffix) const {
  return params_.data() + table_.at(prefix_ + suffix).offset;
}

float* Backbone::grad(const std::string& suffix) const {
  return grads_.data() + table_.at(prefix_ + suffix).offset;
}

void Backbone::resize(const data::Batch& batch) {
  batch_size_ = batch.batch;
  seq_ = batch.seq;
  tokens_ = batch.tokens();
  offsets_ = batch.packed() ? batch.offsets.data() : nullptr;
  const std::int64_t n = tokens_;
  const std::int64_t h = config_.hidden_size;
  fit(mask_add_, batch.packed() ? 0 : n);
  fit(positions_, n);
  for (auto* v : {&emb_sum_, &emb_out_, &dhidden_a_, &dhidden_b_}) fit(*v, n * h);
  for (auto* v : {&emb_mean_, &emb_rstd_}) fit(*v, n);
  for (LayerCache& c : layers_) c.resize(dims(), uses_bf16_);
  scratch_.resize(dims(), uses_bf16_);
}

const float* Backbone::forward(const data::Batch& batch, const StepContext& context) {
  batch_ = &batch;
  context_ = context;
  resize(batch);
  const std::int64_t n = tokens_;
  const std::int64_t h = config_.hidden_size;

  // HF get_extended_attention_mask: (1 - mask) * float32 lowest, added to the scores.
  // (DistilBERT fills masked scores with the lowest value instead: the same softmax.) A packed
  // batch has no padding to hide: its rows attend to themselves only.
  for (std::size_t i = 0; i < mask_add_.size(); ++i) {
    mask_add_[i] = batch.attention_mask[i] != 0 ? 0.0f : std::numeric_limits<float>::lowest();
  }
  const bool from_ids = architecture_of(config_).positions_from_ids;
  const auto pad = static_cast<std::int32_t>(config_.pad_token_id);
  for (std::int64_t b = 0; b < batch.batch; ++b) {
    const std::int64_t first = batch.row_begin(b);
    std::int32_t count = 0;  // RoBERTa: non-padding tokens so far in the row
    for (std::int64_t t = 0; t < batch.row_length(b); ++t) {
      if (!from_ids) {
        positions_[first + t] = static_cast<std::int32_t>(t);
      } else if (batch.input_ids[first + t] == pad) {
        positions_[first + t] = pad;
      } else {
        positions_[first + t] = pad + 1 + count++;
      }
    }
  }
  if (config_.has_token_types()) {
    tensor::embedding_forward(emb_sum_.data(), batch.input_ids.data(), batch.token_type_ids.data(),
                              positions_.data(), param("embeddings.word_embeddings.weight"),
                              param("embeddings.position_embeddings.weight"),
                              param("embeddings.token_type_embeddings.weight"), n, h);
  } else {
    tensor::word_position_embedding_forward(emb_sum_.data(), batch.input_ids.data(), positions_.data(),
                                            param("embeddings.word_embeddings.weight"),
                                            param("embeddings.position_embeddings.weight"), n, h);
  }
  tensor::layernorm_forward(emb_out_.data(), emb_mean_.data(), emb_rstd_.data(), emb_sum_.data(),
                            param("embeddings.LayerNorm.weight"), param("embeddings.LayerNorm.bias"), n, h,
                            static_cast<float>(config_.layer_norm_eps));
  row_dropout_.emplace(batch, context);
  row_dropout_->forward(emb_out_.data(), emb_out_.data(), h, embedding_dropout_p(), kEmbeddingSite, nullptr);

  const float* x = emb_out_.data();
  for (std::int64_t l = 0; l < config_.num_hidden_layers; ++l) {
    encoder_layer_forward(layers_[l], x, offsets_ != nullptr ? nullptr : mask_add_.data(), layer_weights_[l],
                          dims(), layer_dropout(l));
    x = layers_[l].ln2_out.data();
  }
  return x;
}

void Backbone::backward(const GradientsFinal& done) {
  const data::Batch& batch = *batch_;
  const std::int64_t n = tokens_;
  const std::int64_t h = config_.hidden_size;
  auto done_from = [&](std::int64_t offset) {
    if (done) done(offset);
  };

  float* dy = dhidden_a_.data();
  float* dx = dhidden_b_.data();
  for (std::int64_t l = config_.num_hidden_layers - 1; l >= 0; --l) {
    const float* x = l == 0 ? emb_out_.data() : layers_[l - 1].ln2_out.data();
    encoder_layer_backward(dx, dy, layers_[l], x, layer_weights_[l], layer_grads_[l], scratch_, dims(),
                           layer_dropout(l));
    std::swap(dx, dy);
    done_from(layer_begin_[l]);
  }

  row_dropout_->backward_redraw(dy, dy, h, embedding_dropout_p(), kEmbeddingSite);
  tensor::layernorm_backward(dx, grad("embeddings.LayerNorm.weight"), grad("embeddings.LayerNorm.bias"), dy,
                             emb_sum_.data(), param("embeddings.LayerNorm.weight"), emb_mean_.data(),
                             emb_rstd_.data(), n, h);
  if (config_.has_token_types()) {
    tensor::embedding_backward(grad("embeddings.word_embeddings.weight"),
                               grad("embeddings.position_embeddings.weight"),
                               grad("embeddings.token_type_embeddings.weight"), dx, batch.input_ids.data(),
                               batch.token_type_ids.data(), positions_.data(), n, h, config_.pad_token_id);
  } else {
    tensor::word_position_embedding_backward(
        grad("embeddings.word_embeddings.weight"), grad("embeddings.position_embeddings.weight"), dx,
        batch.input_ids.data(), positions_.data(), n, h, config_.pad_token_id);
  }
  if (architecture_of(config_).positions_from_ids) {
    // RoBERTa's position table has padding_idx = pad_token_id, the position every padding
    // token takes: nn.Embedding leaves that row's gradient at zero.
    std::fill_n(grad("embeddings.position_embeddings.weight") + config_.pad_token_id * h, h, 0.0f);
  }
  done_from(0);
}

}  // namespace shmtrain::model
