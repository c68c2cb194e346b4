#include "relative_tables.hpp"

#include <algorithm>

#include <limits>

#include "backbone.hpp"
#include "shmtrain/tensor/layernorm.hpp"
#include "shmtrain/tensor/linear.hpp"
#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain::model {
namespace {

// The table's dropout key: the whole batch's, not a row's (no row id is this large), so one
// worker and P workers draw the same mask.
constexpr std::uint64_t kTableKeyId = std::numeric_limits<std::uint64_t>::max();

// A projection of the table: the layer's key or query linear (share_att_key: rows [H, 2H) or
// [0, H) of the fused Q/K/V) or its own pos_key_proj / pos_query_proj.
struct TableProjection {
  const float* w;
  const float* b;
  const tensor::bf16* w16;
};

TableProjection key_projection(const LayerParams& w, std::int64_t h) {
  if (w.pos_key_w != nullptr) return {w.pos_key_w, w.pos_key_b, w.weights16.pos_key_w};
  const tensor::bf16* w16 = w.weights16.qkv_w != nullptr ? w.weights16.qkv_w + h * h : nullptr;
  return {w.qkv_w + h * h, w.qkv_b != nullptr ? w.qkv_b + h : nullptr, w16};
}

TableProjection query_projection(const LayerParams& w) {
  if (w.pos_query_w != nullptr) return {w.pos_query_w, w.pos_query_b, w.weights16.pos_query_w};
  return {w.qkv_w, w.qkv_b, w.weights16.qkv_w};
}

// The same for the gradient arena.
struct TableProjectionGrad {
  float* w;
  float* b;
};

TableProjectionGrad key_gradient(const LayerParams& g, std::int64_t h) {
  if (g.pos_key_w != nullptr) return {g.pos_key_w, g.pos_key_b};
  return {g.qkv_w + h * h, g.qkv_b != nullptr ? g.qkv_b + h : nullptr};
}

TableProjectionGrad query_gradient(const LayerParams& g) {
  if (g.pos_query_w != nullptr) return {g.pos_query_w, g.pos_query_b};
  return {g.qkv_w, g.qkv_b};
}

tensor::DropoutKey table_key(const RelativeEmbeddings& rel, std::uint64_t site) {
  return tensor::dropout_key(rel.seed, kTableKeyId, rel.step, site);
}

void project_table(float* out, tensor::bf16* out16, const float* in, const tensor::bf16* in16,
                   const TableProjection& p, std::int64_t rows, std::int64_t h) {
  if (in16 != nullptr) {
    tensor::linear_forward(out, in16, p.w16, p.b, rows, h, h);
    tensor::convert_to_bf16(out16, out, rows * h);
  } else {
    tensor::linear_forward(out, in, p.w, p.b, rows, h, h);
  }
}

}  // namespace

void project_position_tables(LayerCache& c, const LayerParams& w, const LayerDims& d) {
  const RelativeEmbeddings& rel = *d.form.relative;
  const std::int64_t h = d.hidden;
  const std::int64_t at = rel.first * h;
  const std::int64_t n = rel.count * h;
  const float* in = rel.table + at;
  if (rel.dropout_p > 0.0f) {  // element i of the table draws bit i, whichever rows are reached
    tensor::dropout_forward(c.rel_in.data() + at, in, n, rel.dropout_p, table_key(rel, d.form.relative_site),
                            static_cast<std::uint64_t>(at), c.rel_dropout_mask.data());
    in = c.rel_in.data() + at;
  }
  const bool bf16 = w.uses_bf16();
  if (bf16) tensor::convert_to_bf16(c.rel_in16.data() + at, in, n);
  const tensor::bf16* in16 = bf16 ? c.rel_in16.data() + at : nullptr;
  if (rel.c2p) {
    project_table(c.pos_key.data() + at, bf16 ? c.pos_key16.data() + at : nullptr, in, in16,
                  key_projection(w, h), rel.count, h);
  }
  if (rel.p2c) {
    project_table(c.pos_query.data() + at, bf16 ? c.pos_query16.data() + at : nullptr, in, in16,
                  query_projection(w), rel.count, h);
  }
}

tensor::PositionTables position_tables(const LayerCache& c, const LayerParams& w, const LayerDims& d,
                                       LayerScratch* s) {
  const RelativeEmbeddings& rel = *d.form.relative;
  tensor::PositionTables t{rel.positions};
  const bool bf16 = w.uses_bf16();
  if (rel.c2p) {
    if (bf16)
      t.key16 = c.pos_key16.data();
    else
      t.key = c.pos_key.data();
    if (s != nullptr) t.d_key = s->d_pos_key.data();
  }
  if (rel.p2c) {
    if (bf16)
      t.query16 = c.pos_query16.data();
    else
      t.query = c.pos_query.data();
    if (s != nullptr) t.d_query = s->d_pos_query.data();
  }
  return t;
}

void position_tables_backward(LayerScratch& s, const LayerCache& c, const LayerParams& w,
                              const LayerParams& g, const LayerDims& d) {
  const RelativeEmbeddings& rel = *d.form.relative;
  const std::int64_t h = d.hidden;
  const std::int64_t at = rel.first * h;
  const std::int64_t n = rel.count * h;
  const bool bf16 = w.uses_bf16();
  const float* in = rel.dropout_p > 0.0f ? c.rel_in.data() + at : rel.table + at;
  // d(table rows) = dKr W_k + dQr W_q; the weights' gradients accumulate.
  auto back = [&](float* d_in, const float* d_out, const TableProjection& p, const TableProjectionGrad& gp) {
    if (bf16) {
      tensor::convert_to_bf16(s.d_pos16.data(), d_out, n);
      tensor::linear_backward(d_in, gp.w, gp.b, s.d_pos16.data(), c.rel_in16.data() + at, p.w16, rel.count, h,
                              h);
    } else {
      tensor::linear_backward(d_in, gp.w, gp.b, d_out, in, p.w, rel.count, h, h);
    }
  };
  float* d_rel = s.d_rel.data();
  bool have = false;
  if (rel.c2p) {
    back(d_rel, s.d_pos_key.data() + at, key_projection(w, h), key_gradient(g, h));
    have = true;
  }
  if (rel.p2c) {
    float* target = have ? s.d_rel_part.data() : d_rel;
    back(target, s.d_pos_query.data() + at, query_projection(w), query_gradient(g));
    if (have) {
      tensor::parallel_blocks(n, 16384, [&](std::int64_t i0, std::int64_t i1) {
        for (std::int64_t i = i0; i < i1; ++i) d_rel[i] += target[i];
      });
    }
    have = true;
  }
  if (!have) return;
  if (rel.dropout_p > 0.0f)
    tensor::dropout_backward(d_rel, d_rel, n, rel.dropout_p, c.rel_dropout_mask.data());
  float* grad = rel.grad + at;
  tensor::parallel_blocks(n, 16384, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) grad[i] += d_rel[i];
  });
}

// The backbone's share of DeBERTa's tables: the padded layout's masked embeddings, the shared
// table normalised before the layers and its gradient taken back after them.
void Backbone::zero_padding_rows(float* rows, std::int64_t width) const {
  for (std::size_t i = 0; i < mask_add_.size(); ++i) {
    if (mask_add_[i] != 0.0f) std::fill_n(rows + static_cast<std::int64_t>(i) * width, width, 0.0f);
  }
}

void Backbone::relative_forward() {
  const std::int64_t rows = relative_.positions.table_rows();
  const std::int64_t h = config_.hidden_size;
  const float* table = param("encoder.rel_embeddings.weight");
  relative_.table = table;
  if (const float* w = find_in(params_, prefix_ + "encoder.LayerNorm.weight"); w != nullptr) {  // norm_rel_ebd
    tensor::layernorm_forward(rel_norm_.data(), rel_mean_.data(), rel_rstd_.data(), table, w,
                              param("encoder.LayerNorm.bias"), rows, h, static_cast<float>(config_.layer_norm_eps));
    relative_.table = rel_norm_.data();
  }
}

void Backbone::plan_relative() {
  relative_.grad = rel_grad_.data();
  // The rows the batch's longest sequence reaches (the rows grow with i - j).
  std::int64_t longest = 1;
  for (std::int64_t b = 0; b < batch_size_; ++b) {
    longest = std::max<std::int64_t>(longest, offsets_ != nullptr ? offsets_[b + 1] - offsets_[b] : seq_);
  }
  const tensor::RelativePositions& p = relative_.positions;
  relative_.first = std::min(p.c2p_row(-(longest - 1)), p.p2c_row(-(longest - 1)));
  relative_.count = std::max(p.c2p_row(longest - 1), p.p2c_row(longest - 1)) - relative_.first + 1;
  relative_.dropout_p = context_.train ? static_cast<float>(config_.hidden_dropout_prob) : 0.0f;
  relative_.seed = context_.seed;
  relative_.step = context_.step;
}

// The layers' gradients of the (normalised) table, back into rel_embeddings (and its norm).
void Backbone::relative_backward() {
  const std::int64_t rows = relative_.positions.table_rows();
  const std::int64_t h = config_.hidden_size;
  const float* d_table = rel_grad_.data();
  if (const float* w = find_in(params_, prefix_ + "encoder.LayerNorm.weight"); w != nullptr) {
    tensor::layernorm_backward(rel_dx_.data(), grad("encoder.LayerNorm.weight"), grad("encoder.LayerNorm.bias"),
                               rel_grad_.data(), param("encoder.rel_embeddings.weight"), w, rel_mean_.data(),
                               rel_rstd_.data(), rows, h);
    d_table = rel_dx_.data();
  }
  float* g = grad("encoder.rel_embeddings.weight");
  for (std::int64_t i = 0; i < rows * h; ++i) g[i] += d_table[i];
}

}  // namespace shmtrain::model
