#include "backbone.hpp"

#include <algorithm>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "architectures/architecture.hpp"
#include "fit.hpp"
#include "shmtrain/common/error.hpp"
#include "shmtrain/model/train_flops.hpp"
#include "shmtrain/tensor/embedding.hpp"
#include "shmtrain/tensor/layernorm.hpp"
#include "shmtrain/tensor/linear.hpp"
#include "shmtrain/tensor/word_position_embedding.hpp"

namespace shmtrain::model {
namespace {

constexpr std::uint64_t kEmbeddingSite = 0;

// SHMTRAIN_FULL_LAST_LAYER=1: compute every row of the last layer even where the head reads one.
bool full_last_layer_forced() {
  const char* value = std::getenv("SHMTRAIN_FULL_LAST_LAYER");
  return value != nullptr && std::string(value) == "1";
}

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
    // The layer's first parameter: its entries are contiguous in the table.
    const std::string p = fmt::format(fmt::runtime(arch.layer_prefix), l);
    std::int64_t begin = std::numeric_limits<std::int64_t>::max();
    for (const ParamEntry& e : table.entries()) {
      if (e.name.starts_with(p)) begin = std::min(begin, e.offset);
    }
    layer_begin_.push_back(begin);
  }
  if (arch.structure.attention == AttentionKind::kDisentangled) {
    relative_.positions = {config.position_buckets, config.max_relative_distance()};
    relative_.c2p = config.c2p();
    relative_.p2c = config.p2c();
    disentangled_ = true;
  }
  if (arch.structure.positions == PositionEncoding::kRotary) {
    const std::int64_t positions = config.max_sequence_length();
    rotary_.emplace_back(config.global_rope_theta, config.head_dim(), positions);
    rotary_.emplace_back(config.local_rope_theta, config.head_dim(), positions);
    for (std::int64_t l = 0; l < config.num_hidden_layers; ++l) {
      layer_rotary_.push_back(config.attention_window(l) < 0 ? 0 : 1);
    }
  }
}

float* Backbone::find_in(std::span<float> arena, const std::string& name) const {
  const ParamEntry* e = table_.find(name);
  return e == nullptr ? nullptr : arena.data() + e->offset;
}

LayerParams Backbone::layer_params(std::span<float> arena, std::int64_t layer) const {
  const Architecture& arch = architecture_of(config_);
  const LayerModules& m = arch.layer;
  const std::string p = fmt::format(fmt::runtime(arch.layer_prefix), layer);
  auto w = [&](const char* module) { return arena.data() + table_.at(p + module + ".weight").offset; };
  // Biases the config leaves out, and a pre-norm layer's missing LN1, are null.
  auto optional = [&](const char* module, const char* what) { return find_in(arena, p + module + what); };
  // BERT's Q/K/V weights and biases are adjacent: query's pointer is the fused linear's.
  const char* qkv = m.qkv != nullptr ? m.qkv : m.query;
  LayerParams params{w(qkv),
                    optional(qkv, ".bias"),
                    w(m.attention_output),
                    optional(m.attention_output, ".bias"),
                    optional(m.attention_norm, ".weight"),
                    optional(m.attention_norm, ".bias"),
                    w(m.intermediate),
                    optional(m.intermediate, ".bias"),
                    w(m.output),
                    optional(m.output, ".bias"),
                    w(m.output_norm),
                    optional(m.output_norm, ".bias")};
  // DeBERTa without share_att_key: the position tables' own projections.
  params.pos_key_w = optional("attention.self.pos_key_proj", ".weight");
  params.pos_key_b = optional("attention.self.pos_key_proj", ".bias");
  params.pos_query_w = optional("attention.self.pos_query_proj", ".weight");
  params.pos_query_b = optional("attention.self.pos_query_proj", ".bias");
  return params;
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
    auto at = [&](const float* p) { return p == nullptr ? nullptr : weights16.data() + (p - params_.data()); };
    w.weights16 = {at(w.qkv_w), at(w.attn_out_w), at(w.inter_w), at(w.out_w), at(w.pos_key_w), at(w.pos_query_w)};
  }
}

LayerDropout Backbone::layer_dropout(std::int64_t layer) const {
  LayerDropout drop;
  drop.rows = &*row_dropout_;
  if (!context_.train) return drop;
  const LayerStructure& structure = architecture_of(config_).structure;
  const auto hidden_p = static_cast<float>(config_.hidden_dropout_prob);
  drop.hidden_p = structure.dropout_inside_feed_forward ? 0.0f : hidden_p;
  drop.ffn_inner_p = structure.dropout_inside_feed_forward ? hidden_p : 0.0f;
  drop.attention_p = static_cast<float>(config_.attention_probs_dropout_prob);
  drop.attention_output_p = structure.attention_output_dropout ? hidden_p : 0.0f;
  drop.attention_output_site = layer_site(layer, 1);
  drop.output_site = layer_site(layer, 2);
  if (drop.attention_p > 0.0f) drop.attention_keys = row_dropout_->keys(layer_site(layer, 0));
  return drop;
}

float Backbone::embedding_dropout_p() const {
  return context_.train ? static_cast<float>(config_.*architecture_of(config_).structure.embedding_dropout) : 0.0f;
}

LayerDims Backbone::dims(std::int64_t layer) const {
  const LayerStructure& structure = architecture_of(config_).structure;
  LayerForm form;
  form.pre_norm = structure.norm == NormPlacement::kBeforeBlock;
  form.attention_norm = !form.pre_norm || layer > 0 || structure.first_attention_norm;
  form.geglu = structure.feed_forward == FeedForward::kGeglu;
  if (!rotary_.empty()) {
    form.rotary = &rotary_[layer_rotary_[static_cast<std::size_t>(layer)]];
    form.positions = positions_.data();
    form.window = config_.attention_window(layer);
  }
  form.ffn_inner_dropout = context_.train && structure.dropout_inside_feed_forward && config_.hidden_dropout_prob > 0;
  if (structure.attention == AttentionKind::kDisentangled) {
    form.relative = &relative_;
    form.relative_site = layer_site(layer, 0);  // under the table's own key, not a row's
  }
  return {batch_size_,
          seq_,
          config_.hidden_size,
          config_.num_attention_heads,
          config_.intermediate_size,
          static_cast<float>(config_.layer_norm_eps),
          offsets_,
          form};
}

const float* Backbone::param(const std::string& suffix) const {
  return params_.data() + table_.at(prefix_ + suffix).offset;
}

float* Backbone::grad(const std::string& suffix) const {
  return grads_.data() + table_.at(prefix_ + suffix).offset;
}

// Where the layers' tokens come from: the batch's layout as it is, or (a padded batch of a
// family that runs packed rows) its real tokens packed, in order.
void Backbone::lay_out_tokens(const data::Batch& batch) {
  unpadded_ = !batch.packed() && !rotary_.empty();
  layout_ = &batch;
  if (unpadded_) {
    packed_.batch = batch.batch;
    packed_.seq = batch.seq;
    packed_.row_ids = batch.row_ids;
    packed_.input_ids.clear();
    packed_.offsets.assign(1, 0);
    token_index_.clear();
    for (std::int64_t b = 0; b < batch.batch; ++b) {
      for (std::int64_t t = 0; t < batch.seq; ++t) {
        const auto i = static_cast<std::size_t>(b * batch.seq + t);
        if (batch.attention_mask[i] == 0) continue;
        token_index_.push_back(static_cast<std::int32_t>(i));
        packed_.input_ids.push_back(batch.input_ids[i]);
      }
      packed_.offsets.push_back(static_cast<std::int32_t>(token_index_.size()));
    }
    layout_ = &packed_;
  }
  batch_size_ = layout_->batch;
  seq_ = layout_->seq;
  tokens_ = layout_->tokens();
  offsets_ = layout_->packed() ? layout_->offsets.data() : nullptr;
  ids_ = layout_->input_ids.data();
}

void Backbone::resize(const data::Batch& batch) {
  lay_out_tokens(batch);
  const std::int64_t n = tokens_;
  const std::int64_t h = config_.hidden_size;
  fit(mask_add_, offsets_ != nullptr ? 0 : n);
  fit(positions_, n);
  const std::int64_t e = config_.embedding_width();
  for (auto* v : {&dhidden_a_, &dhidden_b_}) fit(*v, n * h);
  for (auto* v : {&emb_sum_, &emb_out_}) fit(*v, n * e);
  for (auto* v : {&emb_mean_, &emb_rstd_}) fit(*v, n);
  const bool project = config_.projects_embeddings();
  fit(projected_, project ? n * h : 0);
  for (auto* v : {&emb_grad_a_, &emb_grad_b_}) fit(*v, project ? n * e : 0);
  const std::int64_t table = disentangled_ ? relative_.positions.table_rows() : 0;
  for (auto* v : {&rel_norm_, &rel_grad_, &rel_dx_}) fit(*v, table * h);
  for (auto* v : {&rel_mean_, &rel_rstd_}) fit(*v, table);
  if (disentangled_) plan_relative();  // before the layers size their caches by it
  pool_last_ = last_layer_pooled(config_) && !uses_bf16_ && !unpadded_ && !full_last_layer_forced();
  const std::int64_t full_layers = config_.num_hidden_layers - (pool_last_ ? 1 : 0);
  // Training keeps every layer's activations for backward; inference needs only the layer it
  // runs and its input, so two caches take turns (forward sizes them per layer): a batch of
  // long texts would otherwise hold (and first touch) every layer's attention probabilities.
  if (context_.train) {
    for (std::int64_t l = 0; l < full_layers; ++l) layers_[l].resize(dims(l), uses_bf16_);
  }
  for (auto* v : {&pooled_out_, &pooled_grad_}) fit(*v, pool_last_ ? n * h : 0);
  scratch_.resize(dims(0), uses_bf16_);
  const bool final_norm = architecture_of(config_).structure.final_norm != nullptr;
  fit(final_out_, final_norm ? n * h : 0);
  for (auto* v : {&final_mean_, &final_rstd_}) fit(*v, final_norm ? n : 0);
  for (auto* v : {&head_out_, &head_grad_}) fit(*v, unpadded_ ? batch.tokens() * h : 0);
}

const float* Backbone::forward(const data::Batch& batch, const StepContext& context) {
  batch_ = &batch;
  context_ = context;
  resize(batch);
  const std::int64_t n = tokens_;
  const std::int64_t h = config_.hidden_size;
  const Architecture& arch = architecture_of(config_);

  // HF get_extended_attention_mask: (1 - mask) * float32 lowest, added to the scores.
  // (DistilBERT fills masked scores with the lowest value instead: the same softmax.) A packed
  // batch has no padding to hide: its rows attend to themselves only.
  for (std::size_t i = 0; i < mask_add_.size(); ++i) {
    mask_add_[i] = batch.attention_mask[i] != 0 ? 0.0f : std::numeric_limits<float>::lowest();
  }
  const bool from_ids = arch.structure.positions == PositionEncoding::kLearnedFromIds;
  const auto pad = static_cast<std::int32_t>(config_.pad_token_id);
  for (std::int64_t b = 0; b < batch_size_; ++b) {
    const std::int64_t first = offsets_ != nullptr ? offsets_[b] : b * seq_;
    const std::int64_t length = offsets_ != nullptr ? offsets_[b + 1] - offsets_[b] : seq_;
    std::int32_t count = 0;  // RoBERTa: non-padding tokens so far in the row
    for (std::int64_t t = 0; t < length; ++t) {
      if (!from_ids) {
        positions_[first + t] = static_cast<std::int32_t>(t);
      } else if (ids_[first + t] == pad) {
        positions_[first + t] = pad;
      } else {
        positions_[first + t] = pad + 1 + count++;
      }
    }
  }
  const std::int64_t e = config_.embedding_width();
  const std::string word = std::string(arch.embeddings.word) + ".weight";
  const bool position_table = config_.has_position_table();
  if (config_.has_token_types() && position_table) {
    tensor::embedding_forward(emb_sum_.data(), ids_, batch.token_type_ids.data(), positions_.data(), param(word),
                              param("embeddings.position_embeddings.weight"),
                              param("embeddings.token_type_embeddings.weight"), n, e);
  } else if (config_.has_token_types()) {  // DeBERTa without absolute positions: word + token type
    tensor::word_position_embedding_forward(emb_sum_.data(), ids_, batch.token_type_ids.data(), param(word),
                                            param("embeddings.token_type_embeddings.weight"), n, e);
  } else {
    const float* table = position_table ? param("embeddings.position_embeddings.weight") : nullptr;
    tensor::word_position_embedding_forward(emb_sum_.data(), ids_, positions_.data(), param(word), table, n, e);
  }
  const std::string norm = prefix_ + arch.embeddings.norm;
  tensor::layernorm_forward(emb_out_.data(), emb_mean_.data(), emb_rstd_.data(), emb_sum_.data(),
                            find_in(params_, norm + ".weight"), find_in(params_, norm + ".bias"), n, e,
                            static_cast<float>(config_.layer_norm_eps));
  if (disentangled_) zero_padding_rows(emb_out_.data(), e);  // DebertaV2Embeddings: embeddings * mask
  row_dropout_.emplace(*layout_, context);
  row_dropout_->forward(emb_out_.data(), emb_out_.data(), e, embedding_dropout_p(), kEmbeddingSite, nullptr);
  if (config_.projects_embeddings()) {  // ELECTRA's embeddings_project, embedding_size -> hidden_size
    tensor::linear_forward(projected_.data(), emb_out_.data(), param("embeddings_project.weight"),
                           param("embeddings_project.bias"), n, e, h);
  }

  if (disentangled_) relative_forward();
  const float* x = encoder_input();
  const float* mask = offsets_ != nullptr ? nullptr : mask_add_.data();
  const std::int64_t last = config_.num_hidden_layers - 1;
  for (std::int64_t l = 0; l < config_.num_hidden_layers; ++l) {
    if (l == last && pool_last_) {
      pooled_.forward(x, mask, layer_weights_[l], dims(l), layer_dropout(l));
      // Each sequence's row at its first token; the head reads no other.
      std::fill(pooled_out_.begin(), pooled_out_.end(), 0.0f);
      for (std::int64_t b = 0; b < batch_size_; ++b)
        std::copy_n(pooled_.output() + b * h, h, pooled_out_.data() + batch.row_begin(b) * h);
      return pooled_out_.data();  // no final norm: a pre-norm family never pools
    }
    LayerCache& cache = layers_[static_cast<std::size_t>(context_.train ? l : l % 2)];
    if (!context_.train) cache.resize(dims(l), uses_bf16_);
    encoder_layer_forward(cache, x, mask, layer_weights_[l], dims(l), layer_dropout(l));
    x = cache.output;
  }
  if (const char* final_norm = arch.structure.final_norm; final_norm != nullptr) {
    const std::string name = final_norm;
    tensor::layernorm_forward(final_out_.data(), final_mean_.data(), final_rstd_.data(), x,
                              find_in(params_, name + ".weight"), find_in(params_, name + ".bias"), n, h,
                              static_cast<float>(config_.layer_norm_eps));
    x = final_out_.data();
  }
  if (!unpadded_) return x;
  // Back to the batch's layout; padding rows are zeros (transformers' _pad_modernbert_output).
  std::fill(head_out_.begin(), head_out_.end(), 0.0f);
  for (std::int64_t i = 0; i < n; ++i) std::copy_n(x + i * h, h, head_out_.data() + token_index_[i] * h);
  return head_out_.data();
}

void Backbone::backward(const GradientsFinal& done) {
  const data::Batch& batch = *batch_;
  const std::int64_t n = tokens_;
  const std::int64_t h = config_.hidden_size;
  const Architecture& arch = architecture_of(config_);
  auto done_from = [&](std::int64_t offset) {
    if (done) done(offset);
  };

  float* dy = dhidden_a_.data();
  float* dx = dhidden_b_.data();
  if (unpadded_) {  // the head's gradient at the real tokens; padding rows fed nothing
    for (std::int64_t i = 0; i < n; ++i) std::copy_n(head_grad_.data() + token_index_[i] * h, h, dy + i * h);
  }
  if (const char* final_norm = arch.structure.final_norm; final_norm != nullptr) {
    const std::string name = final_norm;
    const float* last = layers_.back().output;
    tensor::layernorm_backward(dx, find_in(grads_, name + ".weight"), find_in(grads_, name + ".bias"), dy, last,
                               find_in(params_, name + ".weight"), final_mean_.data(), final_rstd_.data(), n, h);
    std::swap(dx, dy);
  }
  if (disentangled_) std::fill(rel_grad_.begin(), rel_grad_.end(), 0.0f);
  for (std::int64_t l = config_.num_hidden_layers - 1; l >= 0; --l) {
    const float* x = l == 0 ? encoder_input() : layers_[l - 1].output;
    if (l == config_.num_hidden_layers - 1 && pool_last_) {
      for (std::int64_t b = 0; b < batch_size_; ++b)
        std::copy_n(dy + batch.row_begin(b) * h, h, pooled_grad_.data() + b * h);
      pooled_.backward(dx, pooled_grad_.data(), x, layer_weights_[l], layer_grads_[l], dims(l), layer_dropout(l));
    } else {
      encoder_layer_backward(dx, dy, layers_[l], x, layer_weights_[l], layer_grads_[l], scratch_, dims(l),
                             layer_dropout(l));
    }
    std::swap(dx, dy);
    done_from(layer_begin_[l]);
  }
  if (disentangled_) relative_backward();

  const std::int64_t e = config_.embedding_width();
  if (config_.projects_embeddings()) {  // back through embeddings_project, to the embeddings' width
    tensor::linear_backward(emb_grad_a_.data(), grad("embeddings_project.weight"), grad("embeddings_project.bias"),
                            dy, emb_out_.data(), param("embeddings_project.weight"), n, e, h);
    dy = emb_grad_a_.data();
    dx = emb_grad_b_.data();
  }
  row_dropout_->backward_redraw(dy, dy, e, embedding_dropout_p(), kEmbeddingSite);
  if (disentangled_) zero_padding_rows(dy, e);
  const std::string norm = prefix_ + arch.embeddings.norm;
  tensor::layernorm_backward(dx, find_in(grads_, norm + ".weight"), find_in(grads_, norm + ".bias"), dy,
                             emb_sum_.data(), find_in(params_, norm + ".weight"), emb_mean_.data(),
                             emb_rstd_.data(), n, e);
  const std::string word = std::string(arch.embeddings.word) + ".weight";
  const bool position_table = config_.has_position_table();
  if (config_.has_token_types() && position_table) {
    tensor::embedding_backward(grad(word), grad("embeddings.position_embeddings.weight"),
                               grad("embeddings.token_type_embeddings.weight"), dx, ids_,
                               batch.token_type_ids.data(), positions_.data(), n, e, config_.pad_token_id);
  } else if (config_.has_token_types()) {
    tensor::word_position_embedding_backward(grad(word), grad("embeddings.token_type_embeddings.weight"), dx, ids_,
                                             batch.token_type_ids.data(), n, e, config_.pad_token_id);
  } else {
    float* d_table = position_table ? grad("embeddings.position_embeddings.weight") : nullptr;
    tensor::word_position_embedding_backward(grad(word), d_table, dx, ids_, positions_.data(), n, e,
                                             config_.pad_token_id);
  }
  if (arch.structure.positions == PositionEncoding::kLearnedFromIds) {
    // RoBERTa's position table has padding_idx = pad_token_id, the position every padding
    // token takes: nn.Embedding leaves that row's gradient at zero.
    std::fill_n(grad("embeddings.position_embeddings.weight") + config_.pad_token_id * e, e, 0.0f);
  }
  done_from(0);
}

}  // namespace shmtrain::model
