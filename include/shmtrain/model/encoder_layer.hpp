#pragma once
// One encoder layer, in the form its family describes (model/architectures: LayerStructure):
//
// BERT (post-norm; BertLayer, and DistilBERT's TransformerBlock without the first dropout):
//   qkv  = x W_qkv^T + b_qkv                      (N, 3H)  fused query/key/value
//   ctx  = attention(qkv, mask)                   (N, H)
//   a    = LN1(dropout(ctx W_ao^T + b_ao) + x)    (N, H)  dropout at attention_output_p
//   g    = gelu(a W_i^T + b_i)                    (N, I)
//   y    = LN2(dropout(g W_o^T + b_o) + a)        (N, H)
// DeBERTa (DebertaV2Layer): BERT's, with the disentangled attention: the scores gain terms from
// the shared relative-position table R (model/relative_tables.hpp), dropped per layer and
// projected by this layer's key and query linears (or its own pos_key_proj / pos_query_proj):
//   Kr = dropout(R) W_k^T + b_k,  Qr = dropout(R) W_q^T + b_q   (rows, H)
//   ctx = disentangled attention(qkv, Kr, Qr, mask)
// ModernBERT (pre-norm; ModernBertEncoderLayer; LN1 is Identity on layer 0, no biases when the
// config has none):
//   qkv  = rotary(LN1(x) W_qkv^T)                 rotary Q and K at each token's place in its row
//   ctx  = tiled attention(qkv), global or within `window` keys on each side
//   a    = x + ctx W_ao^T
//   [u | v] = LN2(a) W_i^T                        (N, 2I)
//   y    = a + dropout(gelu(u) * v) W_o^T         dropout at ffn_inner_p (mlp_dropout)
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
#include "shmtrain/tensor/relative_positions.hpp"
#include "shmtrain/tensor/rotary.hpp"

namespace shmtrain::model {

// DeBERTa's relative-position embeddings as the layers read them, one table for all layers.
struct RelativeEmbeddings {
  const float* table = nullptr;  // (positions.table_rows(), H): rel_embeddings, LayerNorm'd when configured
  float* grad = nullptr;         // the same shape: each layer's backward adds its gradient
  tensor::RelativePositions positions;
  bool c2p = false, p2c = false;  // which terms the scores have
  // The rows any sequence of the batch reaches, [first, first + count): only they are projected.
  std::int64_t first = 0, count = 0;
  // The table's dropout (StableDropout(hidden_dropout_prob), each layer its own mask): one key
  // for the whole batch, so every worker draws the same masks.
  float dropout_p = 0.0f;
  std::uint64_t seed = 0, step = 0;
};

// What the layer computes (the family's LayerStructure, resolved for one layer).
struct LayerForm {
  bool pre_norm = false;        // LN before each block (ModernBERT), else after its residual (BERT)
  bool attention_norm = true;   // false: a pre-norm layer without LN1 (ModernBERT's layer 0)
  bool geglu = false;           // W_i has 2I rows, [input | gate]
  // Rotary Q/K and the tiled attention (tensor/flash_attention): positions (N) are each token's
  // place in its own sequence. Null: BERT's attention over stored probabilities.
  const tensor::RotaryTable* rotary = nullptr;
  const std::int32_t* positions = nullptr;
  std::int64_t window = -1;  // tiled attention: -1 global, else keys within this distance
  bool ffn_inner_dropout = false;  // this step drops the feed-forward's activation (LayerDropout)
  // DeBERTa's disentangled attention; null: another kind.
  const RelativeEmbeddings* relative = nullptr;
  std::uint64_t relative_site = 0;  // this layer's dropout site on the table
  bool tiled() const { return rotary != nullptr; }
  std::int64_t table_rows() const { return relative != nullptr ? relative->positions.table_rows() : 0; }
};

// A layer's shape. Its N token rows are a padded batch (B rows of T, the padding keys hidden
// by mask_add) or, with offsets, B sequences packed end to end (tensor/attention.hpp): every
// step but attention runs over the N rows alike. The tiled attention needs them packed.
struct LayerDims {
  std::int64_t batch, seq, hidden, heads, intermediate;
  float layer_norm_eps;
  const std::int32_t* offsets = nullptr;  // packed: batch + 1 row starts; null: padded
  LayerForm form{};
  std::int64_t tokens() const { return offsets != nullptr ? offsets[batch] : batch * seq; }
  std::int64_t inter_rows() const { return form.geglu ? 2 * intermediate : intermediate; }
};

// The bf16 copies of a layer's four weight matrices (the model's bf16 arena).
struct LayerWeightsBf16 {
  const tensor::bf16 *qkv_w = nullptr, *attn_out_w = nullptr, *inter_w = nullptr, *out_w = nullptr;
  const tensor::bf16 *pos_key_w = nullptr, *pos_query_w = nullptr;
};

// Pointers into the parameter (or gradient) arena for one layer; a layer whose weights carry
// bf16 copies (weights16 set) runs in bf16. ln1 is the attention block's norm and ln2 the
// feed-forward block's, wherever the form places them. A bias the family lacks is null (and
// ln1_w too, for a layer without LN1).
struct LayerParams {
  float *qkv_w, *qkv_b, *attn_out_w, *attn_out_b, *ln1_w, *ln1_b;
  float *inter_w, *inter_b, *out_w, *out_b, *ln2_w, *ln2_b;
  // DeBERTa without share_att_key: the position tables' own projections (null otherwise).
  float *pos_key_w = nullptr, *pos_key_b = nullptr, *pos_query_w = nullptr, *pos_query_b = nullptr;
  LayerWeightsBf16 weights16{};
  bool uses_bf16() const { return weights16.qkv_w != nullptr; }
};

// A layer's dropouts: rates, and the rows' keys (row_dropout.hpp) at the layer's sites.
struct LayerDropout {
  float hidden_p = 0.0f;     // after the output dense (BERT's hidden_dropout_prob)
  float attention_p = 0.0f;  // on the attention probabilities
  // After the attention's output dense: BERT's hidden_dropout_prob; 0 for DistilBERT, whose
  // MultiHeadSelfAttention.out_lin has no dropout.
  float attention_output_p = 0.0f;
  float ffn_inner_p = 0.0f;  // on the feed-forward's activation, before W_o (ModernBERT's mlp_dropout)
  const RowDropout* rows = nullptr;  // REQUIRES: set, over the batch the layer runs
  std::uint64_t attention_output_site = 0, output_site = 0;
  std::vector<tensor::DropoutKey> attention_keys;  // each row's, at the attention's site
};

// Activations kept from forward for backward. In bf16 the float qkv and ctx stay empty and
// their bf16 forms (with the attention block's input, x16, and the feed-forward's, ffn_in16)
// are kept instead; inter_act is float in fp32 or when its dropout needs a float pass.
// Post-norm: ln1 normalises res1 into the feed-forward's input, ln2 res2 into the output.
// Pre-norm: ln1 normalises x into the attention's input, ln2 res1 into the feed-forward's, and
// res2 is the output.
struct LayerCache {
  std::vector<float> qkv, probs, lse, ctx, res1, ln1_out, ln1_mean, ln1_rstd;
  std::vector<float> inter_pre, inter_act, res2, ln2_out, ln2_mean, ln2_rstd;
  std::vector<tensor::bf16> x16, qkv16, ctx16, ffn_in16, inter_act16;
  // The dropout masks the forward drew (dropout.hpp), for the backward: on the attention
  // probabilities (not the padding mask: that is mask_add), after the attention output
  // dense, after the output dense, on the feed-forward's activation.
  std::vector<std::uint16_t> attention_dropout_mask, attention_output_dropout_mask, output_dropout_mask;
  std::vector<std::uint16_t> ffn_inner_dropout_mask;
  // DeBERTa: the dropped table (when dropout is on), its bf16 copy, and the projected tables
  // Kr and Qr (float, and bf16 for bf16 products); (table_rows, H) each.
  std::vector<float> rel_in, pos_key, pos_query;
  std::vector<tensor::bf16> rel_in16, pos_key16, pos_query16;
  std::vector<std::uint16_t> rel_dropout_mask;
  const float* output = nullptr;  // the layer's result (N, H): ln2_out or res2
  const float* mask_add = nullptr;  // the forward's (the caller keeps it until the backward)
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
  // The feed-forward block's input gradient, then the attention context's (fp32), then the
  // attention block's input before LN1 (pre-norm).
  std::vector<float> d_block_in;
  // The activation's gradient (N, I), then in fp32 its input's (N, inter_rows); GeGLU keeps the
  // first in d_act. The fused Q/K/V's.
  std::vector<float> d_inter, d_act, d_qkv;
  // bf16: d_dense_in's role; the activation's input gradient (whose first (N, H) then holds
  // the attention context's); the fused Q/K/V's.
  std::vector<tensor::bf16> d_dense_in16, d_inter16, d_qkv16;
  // DeBERTa: the gradients of Kr and Qr (their bf16 copy), and of the dropped table.
  std::vector<float> d_pos_key, d_pos_query, d_rel, d_rel_part;
  std::vector<tensor::bf16> d_pos16;
  void resize(const LayerDims& d, bool use_bf16);
};

// x (N, H) -> cache.output (N, H). mask_add (B, T) padded; null packed.
void encoder_layer_forward(LayerCache& cache, const float* x, const float* mask_add, const LayerParams& w,
                           const LayerDims& d, const LayerDropout& drop);

// dy (N, H): gradient of the layer's output, consumed. dx (N, H): gradient of its input,
// overwritten (may not alias dy). Parameter gradients accumulate into g.
void encoder_layer_backward(float* dx, float* dy, const LayerCache& cache, const float* x,
                            const LayerParams& w, const LayerParams& g, LayerScratch& s, const LayerDims& d,
                            const LayerDropout& drop);

}  // namespace shmtrain::model
