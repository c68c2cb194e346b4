#include "shmtrain/model/encoder_layer.hpp"

#include "fit.hpp"
#include "shmtrain/tensor/attention.hpp"
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

// The forward's tail, common to both precisions: res1 holds the attention output dense's
// result; on to LN2's output.
template <typename Inter>
void forward_tail(LayerCache& c, const float* x, const LayerParams& w, const LayerDims& d,
                  const LayerDropout& drop, Inter* inter_act) {
  const std::int64_t n = d.tokens();
  const std::int64_t h = d.hidden;
  dropout_add(c.res1.data(), x, n * h, h, drop.attention_output_p, *drop.rows, drop.attention_output_site,
              c.attention_output_dropout_mask.data());
  tensor::layernorm_forward(c.ln1_out.data(), c.ln1_mean.data(), c.ln1_rstd.data(), c.res1.data(), w.ln1_w,
                            w.ln1_b, n, h, d.layer_norm_eps);
  if constexpr (std::is_same_v<Inter, tensor::bf16>) {
    tensor::convert_to_bf16(c.ln1_out16.data(), c.ln1_out.data(), n * h);
    tensor::linear_forward(c.inter_pre.data(), c.ln1_out16.data(), w.weights16.inter_w, w.inter_b, n, h,
                           d.intermediate);
  } else {
    tensor::linear_forward(c.inter_pre.data(), c.ln1_out.data(), w.inter_w, w.inter_b, n, h, d.intermediate);
  }
  tensor::gelu_forward(inter_act, c.inter_pre.data(), n * d.intermediate);
  if constexpr (std::is_same_v<Inter, tensor::bf16>) {
    tensor::linear_forward(c.res2.data(), inter_act, w.weights16.out_w, w.out_b, n, d.intermediate, h);
  } else {
    tensor::linear_forward(c.res2.data(), inter_act, w.out_w, w.out_b, n, d.intermediate, h);
  }
  dropout_add(c.res2.data(), c.ln1_out.data(), n * h, h, drop.hidden_p, *drop.rows, drop.output_site,
              c.output_dropout_mask.data());
  tensor::layernorm_forward(c.ln2_out.data(), c.ln2_mean.data(), c.ln2_rstd.data(), c.res2.data(), w.ln2_w,
                            w.ln2_b, n, h, d.layer_norm_eps);
}

}  // namespace

void LayerCache::resize(const LayerDims& d, bool use_bf16) {
  const std::int64_t n = d.tokens();
  const std::int64_t h = d.hidden;
  for (auto* v : {&res1, &ln1_out, &res2, &ln2_out}) fit(*v, n * h);
  for (auto* v : {&ln1_mean, &ln1_rstd, &ln2_mean, &ln2_rstd}) fit(*v, n);
  fit(inter_pre, n * d.intermediate);
  fit(probs, tensor::attention_probs_floats(attention_shape(d)));
  const std::int64_t f32 = use_bf16 ? 0 : 1;
  fit(qkv, f32 * n * 3 * h);
  fit(ctx, f32 * n * h);
  fit(inter_act, f32 * n * d.intermediate);
  const std::int64_t b16 = 1 - f32;
  for (auto* v : {&x16, &ctx16, &ln1_out16}) fit(*v, b16 * n * h);
  fit(qkv16, b16 * n * 3 * h);
  fit(inter_act16, b16 * n * d.intermediate);
  fit(attention_dropout_mask, tensor::attention_dropout_mask_words(attention_shape(d)));
  for (auto* v : {&attention_output_dropout_mask, &output_dropout_mask})
    fit(*v, tensor::dropout_mask_words(n * h) + d.batch);  // each row's mask starts on a word
}

void LayerScratch::resize(const LayerDims& d, bool use_bf16) {
  const std::int64_t n = d.tokens();
  const std::int64_t f32 = use_bf16 ? 0 : 1;
  fit(d_residual, n * d.hidden);
  fit(d_dense_in, f32 * n * d.hidden);
  fit(d_block_in, n * d.hidden);
  fit(d_inter, n * d.intermediate);
  fit(d_qkv, f32 * n * 3 * d.hidden);
  const std::int64_t b16 = 1 - f32;
  fit(d_dense_in16, b16 * n * d.hidden);
  fit(d_inter16, b16 * n * d.intermediate);
  fit(d_qkv16, b16 * n * 3 * d.hidden);
}

void encoder_layer_forward(LayerCache& c, const float* x, const float* mask_add, const LayerParams& w,
                           const LayerDims& d, const LayerDropout& drop) {
  const std::int64_t n = d.tokens();
  const std::int64_t h = d.hidden;
  const tensor::AttentionDropout attention_drop{drop.attention_p, {}, drop.attention_keys.data()};
  if (w.uses_bf16()) {
    tensor::convert_to_bf16(c.x16.data(), x, n * h);
    tensor::linear_forward(c.qkv16.data(), c.x16.data(), w.weights16.qkv_w, w.qkv_b, n, h, 3 * h);
    tensor::attention_forward(c.ctx16.data(), c.probs.data(), c.qkv16.data(), mask_add, attention_shape(d),
                              attention_drop, c.attention_dropout_mask.data());
    tensor::linear_forward(c.res1.data(), c.ctx16.data(), w.weights16.attn_out_w, w.attn_out_b, n, h, h);
    forward_tail(c, x, w, d, drop, c.inter_act16.data());
    return;
  }
  tensor::linear_forward(c.qkv.data(), x, w.qkv_w, w.qkv_b, n, h, 3 * h);
  tensor::attention_forward(c.ctx.data(), c.probs.data(), c.qkv.data(), mask_add, attention_shape(d),
                            attention_drop, c.attention_dropout_mask.data());
  tensor::linear_forward(c.res1.data(), c.ctx.data(), w.attn_out_w, w.attn_out_b, n, h, h);
  forward_tail(c, x, w, d, drop, c.inter_act.data());
}

namespace {

// What the backward reads and writes in the GEMMs' input type T: float, or bf16 under --bf16
// (the cached activations, the weights' copies and the gradients that only feed products).
template <typename T>
struct BackwardOperands {
  const T *x, *qkv, *ctx, *ln1_out, *inter_act;   // cached forward values
  const T *qkv_w, *attn_out_w, *inter_w, *out_w;  // the four weight matrices
  T *d_dense_in, *d_inter, *d_context, *d_qkv;    // gradients entering products
};

// clang-format off
// Each row of an initialiser below is one row of BackwardOperands.
BackwardOperands<float> fp32_operands(const float* x, const LayerCache& c, const LayerParams& w,
                                      LayerScratch& s) {
  return {x, c.qkv.data(), c.ctx.data(), c.ln1_out.data(), c.inter_act.data(),
          w.qkv_w, w.attn_out_w, w.inter_w, w.out_w,
          s.d_dense_in.data(), s.d_inter.data(), s.d_block_in.data(), s.d_qkv.data()};
}

BackwardOperands<tensor::bf16> bf16_operands(const LayerCache& c, const LayerParams& w, LayerScratch& s) {
  const LayerWeightsBf16& w16 = w.weights16;
  // The context's gradient reuses GELU's input gradient, free again by then ((N, H) of its
  // (N, intermediate)).
  return {c.x16.data(), c.qkv16.data(), c.ctx16.data(), c.ln1_out16.data(), c.inter_act16.data(),
          w16.qkv_w, w16.attn_out_w, w16.inter_w, w16.out_w,
          s.d_dense_in16.data(), s.d_inter16.data(), s.d_inter16.data(), s.d_qkv16.data()};
}
// clang-format on

// The forward's calls in reverse, for both precisions.
template <typename T>
void backward(float* dx, float* dy, const LayerCache& c, const BackwardOperands<T>& o, const LayerParams& w,
              const LayerParams& g, LayerScratch& s, const LayerDims& d, const LayerDropout& drop) {
  const std::int64_t n = d.tokens();
  const std::int64_t h = d.hidden;
  float* d_res2 = s.d_residual.data();
  tensor::layernorm_backward(d_res2, g.ln2_w, g.ln2_b, dy, c.res2.data(), w.ln2_w, c.ln2_mean.data(),
                             c.ln2_rstd.data(), n, h);
  // res2 = dropout(out_dense) + ln1_out: d_res2 flows to both.
  drop.rows->backward(o.d_dense_in, d_res2, h, drop.hidden_p, c.output_dropout_mask.data());
  tensor::linear_backward(s.d_inter.data(), g.out_w, g.out_b, o.d_dense_in, o.inter_act, o.out_w, n,
                          d.intermediate, h);
  tensor::gelu_backward(o.d_inter, s.d_inter.data(), c.inter_pre.data(), n * d.intermediate);
  float* d_ln1_out = s.d_block_in.data();
  tensor::linear_backward(d_ln1_out, g.inter_w, g.inter_b, o.d_inter, o.ln1_out, o.inter_w, n, h,
                          d.intermediate);
  add_into(d_ln1_out, d_res2, n * h);
  float* d_res1 = s.d_residual.data();
  tensor::layernorm_backward(d_res1, g.ln1_w, g.ln1_b, d_ln1_out, c.res1.data(), w.ln1_w, c.ln1_mean.data(),
                             c.ln1_rstd.data(), n, h);
  // res1 = dropout(attn_out_dense) + x: d_res1 flows to both.
  drop.rows->backward(o.d_dense_in, d_res1, h, drop.attention_output_p,
                      c.attention_output_dropout_mask.data());
  tensor::linear_backward(o.d_context, g.attn_out_w, g.attn_out_b, o.d_dense_in, o.ctx, o.attn_out_w, n, h,
                          h);
  tensor::attention_backward(o.d_qkv, o.d_context, o.qkv, c.probs.data(), attention_shape(d),
                             {drop.attention_p, {}, drop.attention_keys.data()},
                             c.attention_dropout_mask.data());
  tensor::linear_backward(dx, g.qkv_w, g.qkv_b, o.d_qkv, o.x, o.qkv_w, n, h, 3 * h);
  add_into(dx, d_res1, n * h);
}

}  // namespace

void encoder_layer_backward(float* dx, float* dy, const LayerCache& c, const float* x, const LayerParams& w,
                            const LayerParams& g, LayerScratch& s, const LayerDims& d,
                            const LayerDropout& drop) {
  if (w.uses_bf16()) {
    backward(dx, dy, c, bf16_operands(c, w, s), w, g, s, d, drop);
  } else {
    backward(dx, dy, c, fp32_operands(x, c, w, s), w, g, s, d, drop);
  }
}

}  // namespace shmtrain::model
