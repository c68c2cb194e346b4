#pragma once
// One BERT encoder layer (Hugging Face BertLayer, post-LayerNorm; DistilBERT's TransformerBlock
// is the same computation under other names, without the first dropout):
//   qkv  = x W_qkv^T + b_qkv                      (B*T, 3H)  fused query/key/value
//   ctx  = attention(qkv, mask)                   (B*T, H)
//   a    = LN1(dropout(ctx W_ao^T + b_ao) + x)    (B*T, H)  dropout at attention_output_p
//   g    = gelu(a W_i^T + b_i)                    (B*T, I)
//   y    = LN2(dropout(g W_o^T + b_o) + a)        (B*T, H)
// The backward is the forward's calls in reverse; gradients accumulate into the grad arena.
#include <cstdint>
#include <vector>

#include "shmtrain/tensor/dropout.hpp"

namespace shmtrain {

struct LayerDims {
  std::int64_t batch, seq, hidden, heads, intermediate;
  float layer_norm_eps;
  std::int64_t tokens() const { return batch * seq; }
};

// Pointers into the parameter (or gradient) arena for one layer.
struct LayerParams {
  float *qkv_w, *qkv_b, *attn_out_w, *attn_out_b, *ln1_w, *ln1_b;
  float *inter_w, *inter_b, *out_w, *out_b, *ln2_w, *ln2_b;
};

struct LayerDropout {
  float hidden_p = 0.0f;            // after the output dense
  float attention_p = 0.0f;         // on the attention probabilities
  // After the attention's output dense: BERT's hidden_dropout_prob; 0 for DistilBERT, whose
  // MultiHeadSelfAttention.out_lin has no dropout.
  float attention_output_p = 0.0f;
  DropoutKey attention, attention_output, output;
};

// Activations kept from forward for backward.
struct LayerCache {
  std::vector<float> qkv, probs, ctx, res1, ln1_out, ln1_mean, ln1_rstd;
  std::vector<float> inter_pre, inter_act, res2, ln2_out, ln2_mean, ln2_rstd;
  void resize(const LayerDims& d);
};

// Gradient scratch shared by all layers of a model (only one layer runs backward at a time).
struct LayerScratch {
  std::vector<float> t1, t2, t3, inter, qkv;
  void resize(const LayerDims& d);
};

// x (B*T, H) -> cache.ln2_out (B*T, H). mask_add (B, T).
void encoder_layer_forward(LayerCache& cache, const float* x, const float* mask_add, const LayerParams& w,
                           const LayerDims& d, const LayerDropout& drop);

// dy (B*T, H): gradient of the layer's output, consumed. dx (B*T, H): gradient of its input,
// overwritten (may not alias dy). Parameter gradients accumulate into g.
void encoder_layer_backward(float* dx, float* dy, const LayerCache& cache, const float* x, const LayerParams& w,
                            const LayerParams& g, LayerScratch& s, const LayerDims& d, const LayerDropout& drop);

}  // namespace shmtrain
