#pragma once
// Internal to model: the last encoder layer computed only for the rows its head reads — each
// sequence's first token — when the head is sequence classification or multiple choice with
// first-token pooling (train_flops.hpp: last_layer_pooled). Keys and values still come from
// every token; the first token's query attends to them, and the attention output, residual,
// norms and feed-forward run on B rows instead of N:
//   kv   = x W_kv^T + b_kv                    (N, 2H)  the fused linear's key and value rows
//   q    = x_0 W_q^T + b_q                    (B, H)   x_0: each sequence's first token
//   ctx  = softmax(q k^T / sqrt(d)) v         per sequence and head, over its keys
//   then the layer's post-norm block on the B rows, as encoder_layer.hpp's BERT form.
// The same dropout masks as the full layer draws at those rows (RowDropout's one-per-row unit
// is a row's first token; attention's mask elements of query 0), so the results equal the full
// computation's rows within rounding. float32, post-norm, GELU, scaled-dot-product attention only.
#include <cstdint>
#include <vector>

#include "shmtrain/model/encoder_layer.hpp"

namespace shmtrain::model {

class PooledLastLayer {
 public:
  // x (N, H) -> output() (B, H). mask_add (B, T) padded; null packed.
  void forward(const float* x, const float* mask_add, const LayerParams& w, const LayerDims& d,
               const LayerDropout& drop);
  const float* output() const { return ln2_out_.data(); }

  // dy (B, H) consumed -> dx (N, H), overwritten; parameter gradients accumulate into g.
  void backward(float* dx, float* dy, const float* x, const LayerParams& w, const LayerParams& g,
                const LayerDims& d, const LayerDropout& drop);

 private:
  void attention_forward(const LayerDims& d, const LayerDropout& drop);
  void attention_backward(const LayerDims& d, const LayerDropout& drop);

  const float* mask_add_ = nullptr;
  std::vector<std::int64_t> first_, length_, probs_at_;  // per sequence: first token, keys, probs offset
  std::vector<float> x0_, q_, kv_, probs_, ctx_, res1_, ln1_out_, ln1_mean_, ln1_rstd_;
  std::vector<float> inter_pre_, inter_act_, res2_, ln2_out_, ln2_mean_, ln2_rstd_;
  // Backward scratch.
  std::vector<float> d_res_, d_dense_, d_ffn_, d_inter_, d_ctx_, d_q_, d_kv_, dx0_;
};

}  // namespace shmtrain::model
