#include "shmtrain/model/encoder_layer.hpp"

#include "shmtrain/tensor/attention.hpp"
#include "shmtrain/tensor/gelu.hpp"
#include "shmtrain/tensor/layernorm.hpp"
#include "shmtrain/tensor/linear.hpp"
#include "shmtrain/tensor/parallel.hpp"

namespace shmtrain {
namespace {

template <typename T>
void fit(std::vector<T>& v, std::int64_t n) {
  if (static_cast<std::int64_t>(v.size()) != n) v.resize(static_cast<std::size_t>(n));
}

// out = dropout(out) + residual, in place; the mask goes to `mask`.
void dropout_add(float* out, const float* residual, std::int64_t n, float p, DropoutKey key, std::uint16_t* mask) {
  dropout_forward(out, out, n, p, key, 0, mask);
  parallel_blocks(n, 16384, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) out[i] += residual[i];
  });
}

void add_into(float* out, const float* x, std::int64_t n) {
  parallel_blocks(n, 16384, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) out[i] += x[i];
  });
}

AttentionShape attention_shape(const LayerDims& d) { return {d.batch, d.seq, d.heads, d.hidden / d.heads}; }

// The forward's tail, common to both precisions: res1 holds the attention output dense's
// result; on to LN2's output.
template <typename Inter>
void forward_tail(LayerCache& c, const float* x, const LayerParams& w, const LayerDims& d, const LayerDropout& drop,
                  Inter* inter_act) {
  const std::int64_t n = d.tokens();
  const std::int64_t h = d.hidden;
  dropout_add(c.res1.data(), x, n * h, drop.attention_output_p, drop.attention_output,
              c.attention_output_mask.data());
  layernorm_forward(c.ln1_out.data(), c.ln1_mean.data(), c.ln1_rstd.data(), c.res1.data(), w.ln1_w, w.ln1_b, n, h,
                    d.layer_norm_eps);
  if constexpr (std::is_same_v<Inter, bf16>) {
    convert_to_bf16(c.ln1_out16.data(), c.ln1_out.data(), n * h);
    linear_forward(c.inter_pre.data(), c.ln1_out16.data(), w.weights16.inter_w, w.inter_b, n, h, d.intermediate);
  } else {
    linear_forward(c.inter_pre.data(), c.ln1_out.data(), w.inter_w, w.inter_b, n, h, d.intermediate);
  }
  gelu_forward(inter_act, c.inter_pre.data(), n * d.intermediate);
  if constexpr (std::is_same_v<Inter, bf16>) {
    linear_forward(c.res2.data(), inter_act, w.weights16.out_w, w.out_b, n, d.intermediate, h);
  } else {
    linear_forward(c.res2.data(), inter_act, w.out_w, w.out_b, n, d.intermediate, h);
  }
  dropout_add(c.res2.data(), c.ln1_out.data(), n * h, drop.hidden_p, drop.output, c.output_mask.data());
  layernorm_forward(c.ln2_out.data(), c.ln2_mean.data(), c.ln2_rstd.data(), c.res2.data(), w.ln2_w, w.ln2_b, n, h,
                    d.layer_norm_eps);
}

}  // namespace

void LayerCache::resize(const LayerDims& d, bool use_bf16) {
  const std::int64_t n = d.tokens();
  const std::int64_t h = d.hidden;
  for (auto* v : {&res1, &ln1_out, &res2, &ln2_out}) fit(*v, n * h);
  for (auto* v : {&ln1_mean, &ln1_rstd, &ln2_mean, &ln2_rstd}) fit(*v, n);
  fit(inter_pre, n * d.intermediate);
  fit(probs, d.batch * d.heads * d.seq * d.seq);
  const std::int64_t f32 = use_bf16 ? 0 : 1;
  fit(qkv, f32 * n * 3 * h);
  fit(ctx, f32 * n * h);
  fit(inter_act, f32 * n * d.intermediate);
  const std::int64_t b16 = 1 - f32;
  for (auto* v : {&x16, &ctx16, &ln1_out16}) fit(*v, b16 * n * h);
  fit(qkv16, b16 * n * 3 * h);
  fit(inter_act16, b16 * n * d.intermediate);
  fit(attention_mask, attention_dropout_mask_words(attention_shape(d)));
  for (auto* v : {&attention_output_mask, &output_mask}) fit(*v, dropout_mask_words(n * h));
}

void LayerScratch::resize(const LayerDims& d, bool use_bf16) {
  const std::int64_t n = d.tokens();
  for (auto* v : {&t1, &t2, &t3}) fit(*v, n * d.hidden);
  const std::int64_t f32 = use_bf16 ? 0 : 1;
  fit(inter, n * d.intermediate);
  fit(qkv, f32 * n * 3 * d.hidden);
  const std::int64_t b16 = 1 - f32;
  fit(h16, b16 * n * d.hidden);
  fit(inter16, b16 * n * d.intermediate);
  fit(qkv16, b16 * n * 3 * d.hidden);
}

void encoder_layer_forward(LayerCache& c, const float* x, const float* mask_add, const LayerParams& w,
                           const LayerDims& d, const LayerDropout& drop) {
  const std::int64_t n = d.tokens();
  const std::int64_t h = d.hidden;
  const AttentionDropout attention_drop{drop.attention_p, drop.attention};
  if (w.uses_bf16()) {
    convert_to_bf16(c.x16.data(), x, n * h);
    linear_forward(c.qkv16.data(), c.x16.data(), w.weights16.qkv_w, w.qkv_b, n, h, 3 * h);
    attention_forward(c.ctx16.data(), c.probs.data(), c.qkv16.data(), mask_add, attention_shape(d), attention_drop,
                      c.attention_mask.data());
    linear_forward(c.res1.data(), c.ctx16.data(), w.weights16.attn_out_w, w.attn_out_b, n, h, h);
    forward_tail(c, x, w, d, drop, c.inter_act16.data());
    return;
  }
  linear_forward(c.qkv.data(), x, w.qkv_w, w.qkv_b, n, h, 3 * h);
  attention_forward(c.ctx.data(), c.probs.data(), c.qkv.data(), mask_add, attention_shape(d), attention_drop,
                    c.attention_mask.data());
  linear_forward(c.res1.data(), c.ctx.data(), w.attn_out_w, w.attn_out_b, n, h, h);
  forward_tail(c, x, w, d, drop, c.inter_act.data());
}

namespace {

void backward_bf16(float* dx, float* dy, const LayerCache& c, const LayerParams& w, const LayerParams& g,
                   LayerScratch& s, const LayerDims& d, const LayerDropout& drop) {
  const std::int64_t n = d.tokens();
  const std::int64_t h = d.hidden;
  const LayerWeightsBf16& w16 = w.weights16;
  float* d_res2 = s.t1.data();
  layernorm_backward(d_res2, g.ln2_w, g.ln2_b, dy, c.res2.data(), w.ln2_w, c.ln2_mean.data(), c.ln2_rstd.data(), n, h);
  dropout_backward(s.h16.data(), d_res2, n * h, drop.hidden_p, c.output_mask.data());
  linear_backward(s.inter.data(), g.out_w, g.out_b, s.h16.data(), c.inter_act16.data(), w16.out_w, n, d.intermediate,
                  h);
  gelu_backward(s.inter16.data(), s.inter.data(), c.inter_pre.data(), n * d.intermediate);
  float* d_ln1_out = s.t3.data();
  linear_backward(d_ln1_out, g.inter_w, g.inter_b, s.inter16.data(), c.ln1_out16.data(), w16.inter_w, n, h,
                  d.intermediate);
  add_into(d_ln1_out, d_res2, n * h);
  float* d_res1 = s.t1.data();
  layernorm_backward(d_res1, g.ln1_w, g.ln1_b, d_ln1_out, c.res1.data(), w.ln1_w, c.ln1_mean.data(),
                     c.ln1_rstd.data(), n, h);
  dropout_backward(s.h16.data(), d_res1, n * h, drop.attention_output_p, c.attention_output_mask.data());
  bf16* d_ctx = s.inter16.data();  // free again: (n, h) of its (n, intermediate)
  linear_backward(d_ctx, g.attn_out_w, g.attn_out_b, s.h16.data(), c.ctx16.data(), w16.attn_out_w, n, h, h);
  attention_backward(s.qkv16.data(), d_ctx, c.qkv16.data(), c.probs.data(), attention_shape(d),
                     {drop.attention_p, drop.attention}, c.attention_mask.data());
  linear_backward(dx, g.qkv_w, g.qkv_b, s.qkv16.data(), c.x16.data(), w16.qkv_w, n, h, 3 * h);
  add_into(dx, d_res1, n * h);
}

}  // namespace

void encoder_layer_backward(float* dx, float* dy, const LayerCache& c, const float* x, const LayerParams& w,
                            const LayerParams& g, LayerScratch& s, const LayerDims& d, const LayerDropout& drop) {
  if (w.uses_bf16()) {
    backward_bf16(dx, dy, c, w, g, s, d, drop);
    return;
  }
  const std::int64_t n = d.tokens();
  const std::int64_t h = d.hidden;
  float* d_res2 = s.t1.data();
  layernorm_backward(d_res2, g.ln2_w, g.ln2_b, dy, c.res2.data(), w.ln2_w, c.ln2_mean.data(), c.ln2_rstd.data(), n, h);
  // res2 = dropout(out_dense) + ln1_out: d_res2 flows to both.
  float* d_out_dense = s.t2.data();
  dropout_backward(d_out_dense, d_res2, n * h, drop.hidden_p, c.output_mask.data());
  linear_backward(s.inter.data(), g.out_w, g.out_b, d_out_dense, c.inter_act.data(), w.out_w, n, d.intermediate, h);
  gelu_backward(s.inter.data(), s.inter.data(), c.inter_pre.data(), n * d.intermediate);
  float* d_ln1_out = s.t3.data();
  linear_backward(d_ln1_out, g.inter_w, g.inter_b, s.inter.data(), c.ln1_out.data(), w.inter_w, n, h, d.intermediate);
  add_into(d_ln1_out, d_res2, n * h);
  float* d_res1 = s.t1.data();
  layernorm_backward(d_res1, g.ln1_w, g.ln1_b, d_ln1_out, c.res1.data(), w.ln1_w, c.ln1_mean.data(),
                     c.ln1_rstd.data(), n, h);
  // res1 = dropout(attn_out_dense) + x: d_res1 flows to both.
  float* d_attn_dense = s.t2.data();
  dropout_backward(d_attn_dense, d_res1, n * h, drop.attention_output_p, c.attention_output_mask.data());
  float* d_ctx = s.t3.data();
  linear_backward(d_ctx, g.attn_out_w, g.attn_out_b, d_attn_dense, c.ctx.data(), w.attn_out_w, n, h, h);
  attention_backward(s.qkv.data(), d_ctx, c.qkv.data(), c.probs.data(), attention_shape(d),
                     {drop.attention_p, drop.attention}, c.attention_mask.data());
  linear_backward(dx, g.qkv_w, g.qkv_b, s.qkv.data(), x, w.qkv_w, n, h, 3 * h);
  add_into(dx, d_res1, n * h);
}

}  // namespace shmtrain
