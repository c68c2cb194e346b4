#pragma once
// One BERT encoder layer (Hugging Face BertLayer, post-LayerNorm; DistilBERT's TransformerBlock
// is the same computation under other names, without the first dropout):
//   qkv  = x W_qkv^T + b_qkv                      (N, 3H)  fused query/key/value
//   ctx  = attention(qkv, mask)                   (N, H)
//   a    = LN1(dropout(ctx W_ao^T + b_ao) + x)    (N, H)  dropout at attention_output_p
//   g    = gelu(a W_i^T + b_i)                    (N, I)
//   y    = LN2(dropout(g W_o^T + b_o) + a)        (N, H)
// The backward is the forward's calls in reverse; gradients accumulate into the grad arena.
//
// With bf16 weights (--bf16, torch.autocast semantics) the four linears and the two attention
// products take bf16 inputs and accumulate in float; LayerNorm, softmax, GELU, dropout and
// the residual sums stay in float. What feeds only GEMMs is kept in bf16 (qkv, ctx, the GELU
// output, the gradients entering each linear's backward); the parameter gradients are float.
#include <cstdint>
#include <vector>

#include "shmtrain/model/row_dropout.hpp"
#include "shmtrain/tensor/bf16.hpp"
#include "shmtrain/tensor/dropout.hpp"

namespace shmtrain::model {

// A layer's shape. Its N token rows are a padded batch (B rows of T, the padding keys hidden
// by mask_add) or, with offsets, B sequences packed end to end (tensor/attention.hpp): every
// step but attention runs over the N rows alike.
struct LayerDims {
  std::int64_t batch, seq, hidden, heads, intermediate;
  float layer_norm_eps;
  const std::int32_t* offsets = nullptr;  // packed: batch + 1 row starts; null: padded
  std::int64_t tokens() const { return offsets != nullptr ? offsets[batch] : batch * seq; }
};

// The bf16 copies of a layer's four weight matrices (the model's bf16 arena).
struct LayerWeightsBf16 {
  const tensor::bf16 *qkv_w = nullptr, *attn_out_w = nullptr, *inter_w = nullptr, *out_w = nullptr;
};

// Pointers into the parameter (or gradient) arena for one layer; a layer whose weights carry
// bf16 copies (weights16 set) runs in bf16.
struct LayerParams {
  float *qkv_w, *qkv_b, *attn_out_w, *attn_out_b, *ln1_w, *ln1_b;
  float *inter_w, *inter_b, *out_w, *out_b, *ln2_w, *ln2_b;
  LayerWeightsBf16 weights16{};
  bool uses_bf16() const { return weights16.qkv_w != nullptr; }
};

// A layer's dropouts: rates, and the rows' keys (row_dropout.hpp) at the layer's three sites.
struct LayerDropout {
  float hidden_p = 0.0f;     // after the output dense
  float attention_p = 0.0f;  // on the attention probabilities
  // After the attention's output dense: BERT's hidden_dropout_prob; 0 for DistilBERT, whose
  // MultiHeadSelfAttention.out_lin has no dropout.
  float attention_output_p = 0.0f;
  const RowDropout* rows = nullptr;  // REQUIRES: set, over the batch the layer runs
  std::uint64_t attention_output_site = 0, output_site = 0;
  std::vector<tensor::DropoutKey> attention_keys;  // each row's, at the attention's site
};

// Activations kept from forward for backward. In bf16 the float qkv, ctx and inter_act stay
// empty and their bf16 forms (with the layer's input, x16, and ln1_out16) are kept instead.
struct LayerCache {
  std::vector<float> qkv, probs, ctx, res1, ln1_out, ln1_mean, ln1_rstd;
  std::vector<float> inter_pre, inter_act, res2, ln2_out, ln2_mean, ln2_rstd;
  std::vector<tensor::bf16> x16, qkv16, ctx16, ln1_out16, inter_act16;
  // The dropout masks the forward drew (dropout.hpp), for the backward: on the attention
  // probabilities (not the padding mask: that is mask_add), after the attention output
  // dense, after the output dense.
  std::vector<std::uint16_t> attention_dropout_mask, attention_output_dropout_mask, output_dropout_mask;
  void resize(const LayerDims& d, bool use_bf16);
};

// Gradient scratch shared by all layers of a model (only one layer runs backward at a time).
// Each (N, H) buffer serves two gradients in turn, the second once the first is consumed.
struct LayerScratch {
  // At a residual sum (res2, then res1): it flows into the branch and past it.
  std::vector<float> d_residual;
  // The gradient entering a dense layer's backward (the output dense, then the attention
  // output dense), dropout's backward applied; bf16 keeps it in d_dense_in16 instead.
  std::vector<float> d_dense_in;
  // The feed-forward block's input gradient (LN1's output), then the attention context's.
  std::vector<float> d_block_in;
  std::vector<float> d_inter, d_qkv;  // the intermediate activation's, the fused Q/K/V's
  // bf16: d_dense_in's role; GELU's input gradient (whose first (N, H) then holds the
  // attention context's); the fused Q/K/V's.
  std::vector<tensor::bf16> d_dense_in16, d_inter16, d_qkv16;
  void resize(const LayerDims& d, bool use_bf16);
};

// x (N, H) -> cache.ln2_out (N, H). mask_add (B, T) padded; null packed.
void encoder_layer_forward(LayerCache& cache, const float* x, const float* mask_add, const LayerParams& w,
                           const LayerDims& d, const LayerDropout& drop);

// dy (N, H): gradient of the layer's output, consumed. dx (N, H): gradient of its input,
// overwritten (may not alias dy). Parameter gradients accumulate into g.
void encoder_layer_backward(float* dx, float* dy, const LayerCache& cache, const float* x,
                            const LayerParams& w, const LayerParams& g, LayerScratch& s, const LayerDims& d,
                            const LayerDropout& drop);

}  // namespace shmtrain::model
