#include "shmtrain/model/encoder_layer.hpp"

#include <algorithm>
#include <type_traits>

#include "fit.hpp"
#include "relative_tables.hpp"
#include "shmtrain/tensor/attention.hpp"
#include "shmtrain/tensor/flash_attention.hpp"
#include "shmtrain/tensor/geglu.hpp"
#include "shmtrain/tensor/gelu.hpp"
#include "shmtrain/tensor/layernorm.hpp"
#include "shmtrain/tensor/linear.hpp"
#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain::model {
namespace {

// out = dropout(out) + residual, in place, over (N, width) rows; the mask goes to `mask`.
void dropout_add(float* out, const float* residual, std::int64_t n, std::int64_t width, float p,
                 const RowDropout& rows, std::uint64_t site, std::uint16_t* mask) {
  rows.forward(out, out, width, p, site, mask);
  tensor::parallel_blocks(n, 16384, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) out[i] += residual[i];
  });
}

void add_into(float* out, const float* x, std::int64_t n) {
  tensor::parallel_blocks(n, 16384, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) out[i] += x[i];
  });
}

tensor::AttentionShape attention_shape(const LayerDims& d) {
  return {d.batch, d.seq, d.heads, d.hidden / d.heads, d.offsets};
}

tensor::FlashAttentionShape flash_shape(const LayerDims& d) {
  return {d.batch, d.heads, d.hidden / d.heads, d.offsets, d.form.window};
}

// The GEMM input type's copy of a cached activation: the float vector, or its bf16 twin.
template <typename T>
T* pick(std::vector<float>& f32, std::vector<tensor::bf16>& b16) {
  if constexpr (std::is_same_v<T, tensor::bf16>) {
    return b16.data();
  } else {
    return f32.data();
  }
}

// A linear over activations `in` (float): in bf16 they are rounded into `in16` first.
template <typename T>
void linear_in(float* out, const float* in, tensor::bf16* in16, const float* w, const tensor::bf16* w16,
               const float* bias, std::int64_t n, std::int64_t in_features, std::int64_t out_features) {
  if constexpr (std::is_same_v<T, tensor::bf16>) {
    tensor::convert_to_bf16(in16, in, n * in_features);
    tensor::linear_forward(out, in16, w16, bias, n, in_features, out_features);
  } else {
    tensor::linear_forward(out, in, w, bias, n, in_features, out_features);
  }
}

template <typename T>
void forward(LayerCache& c, const float* x, const float* mask_add, const LayerParams& w, const LayerDims& d,
             const LayerDropout& drop) {
  constexpr bool kBf16 = std::is_same_v<T, tensor::bf16>;
  const std::int64_t n = d.tokens();
  const std::int64_t h = d.hidden;
  const std::int64_t inter = d.intermediate;
  const LayerForm& f = d.form;
  const LayerWeightsBf16& w16 = w.weights16;
  const float eps = d.layer_norm_eps;
  c.mask_add = mask_add;

  // The attention block.
  const float* attention_in = x;
  if (f.pre_norm && f.attention_norm) {
    tensor::layernorm_forward(c.ln1_out.data(), c.ln1_mean.data(), c.ln1_rstd.data(), x, w.ln1_w, w.ln1_b, n, h,
                              eps);
    attention_in = c.ln1_out.data();
  }
  T* qkv = pick<T>(c.qkv, c.qkv16);
  T* ctx = pick<T>(c.ctx, c.ctx16);
  if constexpr (kBf16) {
    tensor::convert_to_bf16(c.x16.data(), attention_in, n * h);
    tensor::linear_forward(qkv, c.x16.data(), w16.qkv_w, w.qkv_b, n, h, 3 * h);
  } else {
    tensor::linear_forward(qkv, attention_in, w.qkv_w, w.qkv_b, n, h, 3 * h);
  }
  if (f.tiled()) {
    tensor::rotary_forward(qkv, f.positions, n, d.heads, *f.rotary);
    tensor::flash_attention_forward(ctx, c.lse.data(), qkv, flash_shape(d));
  } else if (f.relative != nullptr) {
    project_position_tables(c, w, d);
    tensor::disentangled_attention_forward(ctx, c.probs.data(), qkv, mask_add, attention_shape(d),
                                           position_tables(c, w, d, nullptr),
                                           {drop.attention_p, {}, drop.attention_keys.data()},
                                           c.attention_dropout_mask.data());
  } else {
    tensor::attention_forward(ctx, c.probs.data(), qkv, mask_add, attention_shape(d),
                              {drop.attention_p, {}, drop.attention_keys.data()}, c.attention_dropout_mask.data());
  }
  if constexpr (kBf16) {
    tensor::linear_forward(c.res1.data(), ctx, w16.attn_out_w, w.attn_out_b, n, h, h);
  } else {
    tensor::linear_forward(c.res1.data(), ctx, w.attn_out_w, w.attn_out_b, n, h, h);
  }
  dropout_add(c.res1.data(), x, n * h, h, drop.attention_output_p, *drop.rows, drop.attention_output_site,
              c.attention_output_dropout_mask.data());

  // The feed-forward block: its input is LN1(res1) after the residual, or LN2(res1) before it.
  float* ffn_in = f.pre_norm ? c.ln2_out.data() : c.ln1_out.data();
  if (f.pre_norm) {
    tensor::layernorm_forward(ffn_in, c.ln2_mean.data(), c.ln2_rstd.data(), c.res1.data(), w.ln2_w, w.ln2_b, n, h,
                              eps);
  } else {
    tensor::layernorm_forward(ffn_in, c.ln1_mean.data(), c.ln1_rstd.data(), c.res1.data(), w.ln1_w, w.ln1_b, n, h,
                              eps);
  }
  const float* residual = f.pre_norm ? c.res1.data() : ffn_in;
  linear_in<T>(c.inter_pre.data(), ffn_in, c.ffn_in16.data(), w.inter_w, w16.inter_w, w.inter_b, n, h,
               d.inter_rows());
  T* act = pick<T>(c.inter_act, c.inter_act16);
  // A dropout on the activation runs in float; bf16 then rounds the result once.
  const bool float_act = !kBf16 || drop.ffn_inner_p > 0.0f;
  float* act32 = c.inter_act.data();
  auto activate = [&](auto* out) {
    if (f.geglu) {
      tensor::geglu_forward(out, c.inter_pre.data(), n, inter);
    } else {
      tensor::gelu_forward(out, c.inter_pre.data(), n * inter);
    }
  };
  if (float_act) {
    activate(act32);
    if (drop.ffn_inner_p > 0.0f) {
      drop.rows->forward(act32, act32, inter, drop.ffn_inner_p, drop.output_site, c.ffn_inner_dropout_mask.data());
    }
    if constexpr (kBf16) tensor::convert_to_bf16(c.inter_act16.data(), act32, n * inter);
  } else {
    activate(act);
  }
  if constexpr (kBf16) {
    tensor::linear_forward(c.res2.data(), act, w16.out_w, w.out_b, n, inter, h);
  } else {
    tensor::linear_forward(c.res2.data(), act, w.out_w, w.out_b, n, inter, h);
  }
  dropout_add(c.res2.data(), residual, n * h, h, drop.hidden_p, *drop.rows, drop.output_site,
              c.output_dropout_mask.data());
  if (f.pre_norm) {
    c.output = c.res2.data();
    return;
  }
  tensor::layernorm_forward(c.ln2_out.data(), c.ln2_mean.data(), c.ln2_rstd.data(), c.res2.data(), w.ln2_w,
                            w.ln2_b, n, h, eps);
  c.output = c.ln2_out.data();
}

}  // namespace

void LayerCache::resize(const LayerDims& d, bool use_bf16) {
  const std::int64_t n = d.tokens();
  const std::int64_t h = d.hidden;
  const LayerForm& f = d.form;
  for (auto* v : {&res1, &ln1_out, &res2, &ln2_out}) fit(*v, n * h);
  for (auto* v : {&ln1_mean, &ln1_rstd, &ln2_mean, &ln2_rstd}) fit(*v, n);
  fit(inter_pre, n * d.inter_rows());
  fit(probs, f.tiled() ? 0 : tensor::attention_probs_floats(attention_shape(d)));
  fit(lse, f.tiled() ? n * d.heads : 0);
  const std::int64_t f32 = use_bf16 ? 0 : 1;
  fit(qkv, f32 * n * 3 * h);
  fit(ctx, f32 * n * h);
  fit(inter_act, (use_bf16 && !f.ffn_inner_dropout ? 0 : 1) * n * d.intermediate);
  const std::int64_t b16 = 1 - f32;
  for (auto* v : {&x16, &ctx16, &ffn_in16}) fit(*v, b16 * n * h);
  fit(qkv16, b16 * n * 3 * h);
  fit(inter_act16, b16 * n * d.intermediate);
  fit(attention_dropout_mask, f.tiled() ? 0 : tensor::attention_dropout_mask_words(attention_shape(d)));
  for (auto* v : {&attention_output_dropout_mask, &output_dropout_mask})
    fit(*v, tensor::dropout_mask_words(n * h) + d.batch);  // each row's mask starts on a word
  fit(ffn_inner_dropout_mask, f.ffn_inner_dropout ? tensor::dropout_mask_words(n * d.intermediate) + d.batch : 0);
  const std::int64_t table = f.table_rows() * h;
  const bool table_dropout = f.relative != nullptr && f.relative->dropout_p > 0.0f;
  fit(rel_in, table_dropout ? table : 0);
  fit(rel_dropout_mask, table_dropout ? tensor::dropout_mask_words(table) : 0);
  fit(pos_key, f.relative != nullptr && f.relative->c2p ? table : 0);
  fit(pos_query, f.relative != nullptr && f.relative->p2c ? table : 0);
  fit(rel_in16, b16 * table);
  fit(pos_key16, b16 * static_cast<std::int64_t>(pos_key.size()));
  fit(pos_query16, b16 * static_cast<std::int64_t>(pos_query.size()));
}

void LayerScratch::resize(const LayerDims& d, bool use_bf16) {
  const std::int64_t n = d.tokens();
  const std::int64_t f32 = use_bf16 ? 0 : 1;
  fit(d_residual, n * d.hidden);
  fit(d_dense_in, f32 * n * d.hidden);
  fit(d_block_in, n * d.hidden);
  // fp32: the activation's gradient, then its input's in place (GELU) or beside it (GeGLU).
  fit(d_inter, std::max(f32 * n * d.inter_rows(), n * d.intermediate));
  fit(d_act, d.form.geglu ? n * d.intermediate : 0);
  fit(d_qkv, f32 * n * 3 * d.hidden);
  const std::int64_t b16 = 1 - f32;
  fit(d_dense_in16, b16 * n * d.hidden);
  fit(d_inter16, b16 * n * std::max(d.inter_rows(), d.hidden));
  fit(d_qkv16, b16 * n * 3 * d.hidden);
  const std::int64_t table = d.form.table_rows() * d.hidden;
  for (auto* v : {&d_pos_key, &d_pos_query, &d_rel, &d_rel_part}) fit(*v, table);
  fit(d_pos16, b16 * table);
}

void encoder_layer_forward(LayerCache& c, const float* x, const float* mask_add, const LayerParams& w,
                           const LayerDims& d, const LayerDropout& drop) {
  if (w.uses_bf16()) {
    forward<tensor::bf16>(c, x, mask_add, w, d, drop);
  } else {
    forward<float>(c, x, mask_add, w, d, drop);
  }
}

namespace {

// What the backward reads and writes in the GEMMs' input type T: float, or bf16 under --bf16
// (the cached activations, the weights' copies and the gradients that only feed products).
template <typename T>
struct BackwardOperands {
  const T *attention_in, *qkv, *ctx, *ffn_in, *inter_act;  // cached forward values
  const T *qkv_w, *attn_out_w, *inter_w, *out_w;            // the four weight matrices
  T *d_dense_in, *d_inter, *d_context, *d_qkv;              // gradients entering products
};

// clang-format off
// Each row of an initialiser below is one row of BackwardOperands.
BackwardOperands<float> fp32_operands(const float* x, const LayerCache& c, const LayerParams& w, const LayerDims& d,
                                      LayerScratch& s) {
  const LayerForm& f = d.form;
  return {f.pre_norm && f.attention_norm ? c.ln1_out.data() : x, c.qkv.data(), c.ctx.data(),
          f.pre_norm ? c.ln2_out.data() : c.ln1_out.data(), c.inter_act.data(),
          w.qkv_w, w.attn_out_w, w.inter_w, w.out_w,
          s.d_dense_in.data(), s.d_inter.data(), s.d_block_in.data(), s.d_qkv.data()};
}

BackwardOperands<tensor::bf16> bf16_operands(const LayerCache& c, const LayerParams& w, LayerScratch& s) {
  const LayerWeightsBf16& w16 = w.weights16;
  // The context's gradient reuses the activation's input gradient, free again by then ((N, H)
  // of its (N, inter_rows)).
  return {c.x16.data(), c.qkv16.data(), c.ctx16.data(), c.ffn_in16.data(), c.inter_act16.data(),
          w16.qkv_w, w16.attn_out_w, w16.inter_w, w16.out_w,
          s.d_dense_in16.data(), s.d_inter16.data(), s.d_inter16.data(), s.d_qkv16.data()};
}
// clang-format on

// The forward's calls in reverse, for both precisions and both norm placements.
template <typename T>
void backward(float* dx, float* dy, const LayerCache& c, const float* x, const BackwardOperands<T>& o,
              const LayerParams& w, const LayerParams& g, LayerScratch& s, const LayerDims& d,
              const LayerDropout& drop) {
  const std::int64_t n = d.tokens();
  const std::int64_t h = d.hidden;
  const std::int64_t inter = d.intermediate;
  const LayerForm& f = d.form;
  // The output's gradient is the residual sum res2's: through LN2 after it, or as it is.
  float* d_res2 = dy;
  if (!f.pre_norm) {
    d_res2 = s.d_residual.data();
    tensor::layernorm_backward(d_res2, g.ln2_w, g.ln2_b, dy, c.res2.data(), w.ln2_w, c.ln2_mean.data(),
                               c.ln2_rstd.data(), n, h);
  }
  // res2 = dropout(out_dense) + the block's residual: d_res2 flows to both.
  drop.rows->backward(o.d_dense_in, d_res2, h, drop.hidden_p, c.output_dropout_mask.data());
  float* d_act = f.geglu ? s.d_act.data() : s.d_inter.data();
  tensor::linear_backward(d_act, g.out_w, g.out_b, o.d_dense_in, o.inter_act, o.out_w, n, inter, h);
  if (drop.ffn_inner_p > 0.0f) {
    drop.rows->backward(d_act, d_act, inter, drop.ffn_inner_p, c.ffn_inner_dropout_mask.data());
  }
  if (f.geglu) {
    tensor::geglu_backward(o.d_inter, d_act, c.inter_pre.data(), n, inter);
  } else {
    tensor::gelu_backward(o.d_inter, d_act, c.inter_pre.data(), n * inter);
  }
  float* d_ffn_in = s.d_block_in.data();
  tensor::linear_backward(d_ffn_in, g.inter_w, g.inter_b, o.d_inter, o.ffn_in, o.inter_w, n, h, d.inter_rows());
  // res1's gradient: post-norm, (d_ffn_in + d_res2) through LN1; pre-norm, d_ffn_in through LN2
  // plus d_res2.
  float* d_res1 = s.d_residual.data();
  if (f.pre_norm) {
    tensor::layernorm_backward(d_res1, g.ln2_w, g.ln2_b, d_ffn_in, c.res1.data(), w.ln2_w, c.ln2_mean.data(),
                               c.ln2_rstd.data(), n, h);
    add_into(d_res1, d_res2, n * h);
  } else {
    add_into(d_ffn_in, d_res2, n * h);
    tensor::layernorm_backward(d_res1, g.ln1_w, g.ln1_b, d_ffn_in, c.res1.data(), w.ln1_w, c.ln1_mean.data(),
                               c.ln1_rstd.data(), n, h);
  }
  // res1 = dropout(attn_out_dense) + x: d_res1 flows to both.
  drop.rows->backward(o.d_dense_in, d_res1, h, drop.attention_output_p, c.attention_output_dropout_mask.data());
  tensor::linear_backward(o.d_context, g.attn_out_w, g.attn_out_b, o.d_dense_in, o.ctx, o.attn_out_w, n, h, h);
  if (f.tiled()) {
    tensor::flash_attention_backward(o.d_qkv, o.d_context, o.qkv, o.ctx, c.lse.data(), flash_shape(d));
    tensor::rotary_backward(o.d_qkv, f.positions, n, d.heads, *f.rotary);
  } else if (f.relative != nullptr) {
    tensor::disentangled_attention_backward(o.d_qkv, o.d_context, o.qkv, c.probs.data(), c.mask_add, attention_shape(d),
                                            position_tables(c, w, d, &s),
                                            {drop.attention_p, {}, drop.attention_keys.data()},
                                            c.attention_dropout_mask.data());
    position_tables_backward(s, c, w, g, d);
  } else {
    tensor::attention_backward(o.d_qkv, o.d_context, o.qkv, c.probs.data(), attention_shape(d),
                               {drop.attention_p, {}, drop.attention_keys.data()}, c.attention_dropout_mask.data());
  }
  if (f.pre_norm && f.attention_norm) {
    float* d_attention_in = s.d_block_in.data();  // free: the context's gradient is consumed
    tensor::linear_backward(d_attention_in, g.qkv_w, g.qkv_b, o.d_qkv, o.attention_in, o.qkv_w, n, h, 3 * h);
    tensor::layernorm_backward(dx, g.ln1_w, g.ln1_b, d_attention_in, x, w.ln1_w, c.ln1_mean.data(),
                               c.ln1_rstd.data(), n, h);
  } else {
    tensor::linear_backward(dx, g.qkv_w, g.qkv_b, o.d_qkv, o.attention_in, o.qkv_w, n, h, 3 * h);
  }
  add_into(dx, d_res1, n * h);
}

}  // namespace

void encoder_layer_backward(float* dx, float* dy, const LayerCache& c, const float* x, const LayerParams& w,
                            const LayerParams& g, LayerScratch& s, const LayerDims& d,
                            const LayerDropout& drop) {
  if (w.uses_bf16()) {
    backward(dx, dy, c, x, bf16_operands(c, w, s), w, g, s, d, drop);
  } else {
    backward(dx, dy, c, x, fp32_operands(x, c, w, d, s), w, g, s, d, drop);
  }
}

}  // namespace shmtrain::model
