#include "pooled_last_layer.hpp"

#include <algorithm>
#include <cmath>

#include "fit.hpp"
#include "shmtrain/tensor/gelu.hpp"
#include "shmtrain/tensor/layernorm.hpp"
#include "shmtrain/tensor/linear.hpp"
#include "shmtrain/tensor/parallel.hpp"
#include "shmtrain/tensor/softmax.hpp"

namespace shmtrain::model {
namespace pooled_rows {  // named: a unity build puts this file beside encoder_layer.cpp's helpers
namespace {

float dot(const float* a, const float* b, std::int64_t n) {
  float s = 0.0f;
  for (std::int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

// out += residual over (B, H).
void add_into(float* out, const float* residual, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] += residual[i];
}

// The attention-probability dropout mask of query 0 of sequence b, head `head`: elements
// [0, L) of that (L, L) matrix, drawn as tensor/attention draws a row-keyed matrix.
std::vector<std::uint16_t> query0_mask(const LayerDropout& drop, std::int64_t b, std::int64_t head,
                                       std::int64_t length) {
  std::vector<std::uint16_t> mask(static_cast<std::size_t>(tensor::dropout_mask_words(length)));
  tensor::dropout_mask_serial(mask.data(), length, drop.attention_p, drop.attention_keys[static_cast<std::size_t>(b)],
                              static_cast<std::uint64_t>(head * 16 * tensor::dropout_mask_words(length * length)));
  return mask;
}

bool kept(const std::vector<std::uint16_t>& mask, std::int64_t j) { return ((mask[j / 16] >> (j % 16)) & 1u) != 0; }

}  // namespace
}  // namespace pooled_rows


void PooledLastLayer::forward(const float* x, const float* mask_add, const LayerParams& w, const LayerDims& d,
                              const LayerDropout& drop) {
  const std::int64_t n = d.tokens(), rows = d.batch, h = d.hidden, inter = d.intermediate;
  mask_add_ = mask_add;
  first_.resize(static_cast<std::size_t>(rows));
  length_.resize(static_cast<std::size_t>(rows));
  probs_at_.assign(1, 0);
  for (std::int64_t b = 0; b < rows; ++b) {
    first_[b] = d.offsets != nullptr ? d.offsets[b] : b * d.seq;
    length_[b] = d.offsets != nullptr ? d.offsets[b + 1] - d.offsets[b] : d.seq;
    probs_at_.push_back(probs_at_.back() + d.heads * length_[b]);
  }
  for (auto* v : {&x0_, &q_, &ctx_, &res1_, &ln1_out_, &res2_, &ln2_out_}) fit(*v, rows * h);
  for (auto* v : {&ln1_mean_, &ln1_rstd_, &ln2_mean_, &ln2_rstd_}) fit(*v, rows);
  fit(kv_, n * 2 * h);
  fit(probs_, probs_at_.back());
  for (auto* v : {&inter_pre_, &inter_act_}) fit(*v, rows * inter);

  for (std::int64_t b = 0; b < rows; ++b) std::copy_n(x + first_[b] * h, h, x0_.data() + b * h);
  // The fused linear's rows [H, 3H) are the key and value projections, [0, H) the query's.
  tensor::linear_forward(kv_.data(), x, w.qkv_w + h * h, w.qkv_b != nullptr ? w.qkv_b + h : nullptr, n, h, 2 * h);
  tensor::linear_forward(q_.data(), x0_.data(), w.qkv_w, w.qkv_b, rows, h, h);
  attention_forward(d, drop);

  tensor::linear_forward(res1_.data(), ctx_.data(), w.attn_out_w, w.attn_out_b, rows, h, h);
  drop.rows->forward(res1_.data(), res1_.data(), h, drop.attention_output_p, drop.attention_output_site, nullptr,
                     RowUnit::kOnePerRow);
  pooled_rows::add_into(res1_.data(), x0_.data(), rows * h);
  const float eps = d.layer_norm_eps;
  tensor::layernorm_forward(ln1_out_.data(), ln1_mean_.data(), ln1_rstd_.data(), res1_.data(), w.ln1_w, w.ln1_b, rows,
                            h, eps);
  tensor::linear_forward(inter_pre_.data(), ln1_out_.data(), w.inter_w, w.inter_b, rows, h, inter);
  tensor::gelu_forward(inter_act_.data(), inter_pre_.data(), rows * inter);
  tensor::linear_forward(res2_.data(), inter_act_.data(), w.out_w, w.out_b, rows, inter, h);
  drop.rows->forward(res2_.data(), res2_.data(), h, drop.hidden_p, drop.output_site, nullptr, RowUnit::kOnePerRow);
  pooled_rows::add_into(res2_.data(), ln1_out_.data(), rows * h);
  tensor::layernorm_forward(ln2_out_.data(), ln2_mean_.data(), ln2_rstd_.data(), res2_.data(), w.ln2_w, w.ln2_b, rows,
                            h, eps);
}

void PooledLastLayer::attention_forward(const LayerDims& d, const LayerDropout& drop) {
  const std::int64_t h = d.hidden, dh = h / d.heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  const float keep_scale = drop.attention_p > 0.0f ? 1.0f / (1.0f - drop.attention_p) : 1.0f;
  tensor::parallel_blocks(d.batch * d.heads, 4, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t i = i0; i < i1; ++i) {
      const std::int64_t b = i / d.heads, head = i % d.heads, length = length_[b];
      const float* q = q_.data() + b * h + head * dh;
      const float* keys = kv_.data() + first_[b] * 2 * h + head * dh;  // row stride 2H; values H further
      float* p = probs_.data() + probs_at_[b] + head * length;
      for (std::int64_t j = 0; j < length; ++j) p[j] = scale * pooled_rows::dot(q, keys + j * 2 * h, dh);
      tensor::softmax_forward(p, p, mask_add_ != nullptr ? mask_add_ + b * d.seq : nullptr, 1, length);
      float* out = ctx_.data() + b * h + head * dh;
      std::fill_n(out, dh, 0.0f);
      const std::vector<std::uint16_t> mask =
          drop.attention_p > 0.0f ? pooled_rows::query0_mask(drop, b, head, length) : std::vector<std::uint16_t>{};
      for (std::int64_t j = 0; j < length; ++j) {
        if (!mask.empty() && !pooled_rows::kept(mask, j)) continue;
        const float weight = p[j] * keep_scale;
        const float* v = keys + j * 2 * h + h;
        for (std::int64_t c = 0; c < dh; ++c) out[c] += weight * v[c];
      }
    }
  });
}

void PooledLastLayer::backward(float* dx, float* dy, const float* x, const LayerParams& w, const LayerParams& g,
                               const LayerDims& d, const LayerDropout& drop) {
  const std::int64_t n = d.tokens(), rows = d.batch, h = d.hidden, inter = d.intermediate;
  for (auto* v : {&d_res_, &d_dense_, &d_ffn_, &d_ctx_, &d_q_, &dx0_}) fit(*v, rows * h);
  fit(d_inter_, rows * inter);
  fit(d_kv_, n * 2 * h);

  tensor::layernorm_backward(d_res_.data(), g.ln2_w, g.ln2_b, dy, res2_.data(), w.ln2_w, ln2_mean_.data(),
                             ln2_rstd_.data(), rows, h);
  drop.rows->backward_redraw(d_dense_.data(), d_res_.data(), h, drop.hidden_p, drop.output_site, RowUnit::kOnePerRow);
  tensor::linear_backward(d_inter_.data(), g.out_w, g.out_b, d_dense_.data(), inter_act_.data(), w.out_w, rows, inter,
                          h);
  tensor::gelu_backward(d_inter_.data(), d_inter_.data(), inter_pre_.data(), rows * inter);
  tensor::linear_backward(d_ffn_.data(), g.inter_w, g.inter_b, d_inter_.data(), ln1_out_.data(), w.inter_w, rows, h,
                          inter);
  pooled_rows::add_into(d_ffn_.data(), d_res_.data(), rows * h);
  // d_res_ now holds res1's gradient: it flows into the attention and past it to x_0.
  tensor::layernorm_backward(d_res_.data(), g.ln1_w, g.ln1_b, d_ffn_.data(), res1_.data(), w.ln1_w, ln1_mean_.data(),
                             ln1_rstd_.data(), rows, h);
  drop.rows->backward_redraw(d_dense_.data(), d_res_.data(), h, drop.attention_output_p, drop.attention_output_site,
                             RowUnit::kOnePerRow);
  tensor::linear_backward(d_ctx_.data(), g.attn_out_w, g.attn_out_b, d_dense_.data(), ctx_.data(), w.attn_out_w, rows,
                          h, h);
  attention_backward(d, drop);

  tensor::linear_backward(dx, g.qkv_w + h * h, g.qkv_b != nullptr ? g.qkv_b + h : nullptr, d_kv_.data(), x,
                          w.qkv_w + h * h, n, h, 2 * h);
  tensor::linear_backward(dx0_.data(), g.qkv_w, g.qkv_b, d_q_.data(), x0_.data(), w.qkv_w, rows, h, h);
  for (std::int64_t b = 0; b < rows; ++b) {
    float* to = dx + first_[b] * h;
    for (std::int64_t c = 0; c < h; ++c) to[c] += dx0_[b * h + c] + d_res_[b * h + c];
  }
}

void PooledLastLayer::attention_backward(const LayerDims& d, const LayerDropout& drop) {
  const std::int64_t n = d.tokens(), h = d.hidden, dh = h / d.heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  const float keep_scale = drop.attention_p > 0.0f ? 1.0f / (1.0f - drop.attention_p) : 1.0f;
  // Keys of no sequence (a padded batch's tokens past a row's length do not exist) stay zero.
  std::fill_n(d_kv_.data(), n * 2 * h, 0.0f);
  tensor::parallel_blocks(d.batch * d.heads, 4, [&](std::int64_t i0, std::int64_t i1) {
    std::vector<float> ds;
    for (std::int64_t i = i0; i < i1; ++i) {
      const std::int64_t b = i / d.heads, head = i % d.heads, length = length_[b];
      const float* q = q_.data() + b * h + head * dh;
      const float* keys = kv_.data() + first_[b] * 2 * h + head * dh;
      float* d_keys = d_kv_.data() + first_[b] * 2 * h + head * dh;
      const float* p = probs_.data() + probs_at_[b] + head * length;
      const float* d_out = d_ctx_.data() + b * h + head * dh;
      const std::vector<std::uint16_t> mask =
          drop.attention_p > 0.0f ? pooled_rows::query0_mask(drop, b, head, length) : std::vector<std::uint16_t>{};
      ds.assign(static_cast<std::size_t>(length), 0.0f);
      for (std::int64_t j = 0; j < length; ++j) {
        if (!mask.empty() && !pooled_rows::kept(mask, j)) continue;  // dropped: no value gradient, dP = 0
        const float* v = keys + j * 2 * h + h;
        float* dv = d_keys + j * 2 * h + h;
        const float weight = p[j] * keep_scale;
        for (std::int64_t c = 0; c < dh; ++c) dv[c] = weight * d_out[c];
        ds[j] = keep_scale * pooled_rows::dot(d_out, v, dh);  // dP, through the dropout
      }
      tensor::softmax_backward(ds.data(), ds.data(), p, 1, length);
      float* dq = d_q_.data() + b * h + head * dh;
      std::fill_n(dq, dh, 0.0f);
      for (std::int64_t j = 0; j < length; ++j) {
        const float s = scale * ds[j];
        const float* k = keys + j * 2 * h;
        float* dk = d_keys + j * 2 * h;
        for (std::int64_t c = 0; c < dh; ++c) {
          dq[c] += s * k[c];
          dk[c] = s * q[c];
        }
      }
    }
  });
}

}  // namespace shmtrain::model
