#pragma once
// Internal to model: the encoder every head sits on, as the family describes it
// (model/architectures: LayerStructure). BERT (BertModel without its pooler):
//   x = dropout(LN(word[ids] + position[t] + token_type[types]))  then the encoder layers;
// DistilBERT (DistilBertModel): the same without token types, and its layers have no dropout
// after the attention's output dense. ModernBERT (ModernBertModel): x = dropout(LN(word[ids])),
// pre-norm layers with rotary positions, then final_norm; it runs packed rows only (the tiled
// attention has no padding mask), so a padded batch is packed inside and its output laid back
// out with zeros at the padding, as transformers' unpadded path does. ELECTRA (ElectraModel):
// BERT's, its embeddings embedding_size wide and projected to hidden_size. DeBERTa
// (DebertaV2Model): x = dropout(LN(word[ids] (+ position[t]) (+ token_type[types]))), BERT's
// layers with the disentangled attention, all reading one relative-position table (LayerNorm'd
// rel_embeddings). When the head reads only each sequence's first token (classification and
// multiple choice on a family with scaled-dot-product attention, fp32), the last layer runs for
// those rows only (pooled_last_layer.hpp); SHMTRAIN_FULL_LAST_LAYER=1 turns that off (for
// measuring it). Dropout sites: 0 the embeddings, 1 + 3l + k layer l (the DeBERTa table's
// per-layer mask at 1 + 3l under a batch-wide key).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "shmtrain/data/batch.hpp"
#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/encoder_layer.hpp"
#include "shmtrain/model/param_table.hpp"
#include "shmtrain/model/row_dropout.hpp"
#include "shmtrain/model/step_context.hpp"
#include "shmtrain/tensor/bf16.hpp"
#include "shmtrain/tensor/rotary.hpp"
#include "pooled_last_layer.hpp"

namespace shmtrain::model {

// The dropout site of a layer's k-th dropout; layer_site(num_hidden_layers, 0) is the head's.
inline std::uint64_t layer_site(std::int64_t layer, int k) {
  return 1 + 3 * static_cast<std::uint64_t>(layer) + k;
}

class Backbone {
 public:
  // REQUIRES: params and grads hold table.count() floats laid out by `table` (for_model(config)).
  Backbone(const BertConfig& config, const ParamTable& table, std::span<float> params,
           std::span<float> grads);

  // Returns the last layer's hidden states (N, H), one row per token of the batch's layout
  // (padded or packed, data/batch.hpp), valid until the next forward.
  // REQUIRES: batch.validate(config) passed.
  const float* forward(const data::Batch& batch, const StepContext& context);

  // --bf16: the encoder layers' linears and attention products read their weights from
  // `weights16`, a bf16 copy of the parameter arena (same layout); the embeddings stay in
  // float. An empty span: float32. Throws Error when the copy is shorter than the arena.
  void set_bf16_weights(std::span<const tensor::bf16> weights16);
  bool uses_bf16() const { return uses_bf16_; }

  // Where the head writes d(loss)/d(hidden states) (N, H) before backward(), in the batch's
  // layout.
  float* output_grad() { return unpadded_ ? head_grad_.data() : dhidden_a_.data(); }

  // Consumes output_grad(); accumulates the encoder's parameter gradients; calls `done` with
  // each layer's first offset as that layer is finished (from the last), then with 0.
  void backward(const GradientsFinal& done);

 private:
  LayerParams layer_params(std::span<float> arena, std::int64_t layer) const;
  LayerDropout layer_dropout(std::int64_t layer) const;
  float embedding_dropout_p() const;
  LayerDims dims(std::int64_t layer) const;
  const float* param(const std::string& suffix) const;
  float* grad(const std::string& suffix) const;
  // A module's parameter in `arena` by full name; null when the model has none (a bias the
  // config leaves out).
  float* find_in(std::span<float> arena, const std::string& name) const;
  void resize(const data::Batch& batch);
  void lay_out_tokens(const data::Batch& batch);
  // DeBERTa: the shared position table (LayerNorm'd) before the layers, its gradient after them.
  void plan_relative();  // this batch's rows of the table and its dropout
  void relative_forward();
  void relative_backward();
  // A padded batch's padding rows of (N, width) set to 0 (a packed batch has none).
  void zero_padding_rows(float* rows, std::int64_t width) const;
  // The first layer's input: the embeddings, or their projection to hidden_size (ELECTRA).
  const float* encoder_input() const { return projected_.empty() ? emb_out_.data() : projected_.data(); }

  BertConfig config_;
  const ParamTable& table_;
  std::span<float> params_;
  std::span<float> grads_;
  std::string prefix_;  // "bert." or "distilbert."
  // Each layer's views into the two arenas and its first parameter's offset, resolved once.
  std::vector<LayerParams> layer_weights_;
  std::vector<LayerParams> layer_grads_;
  std::vector<std::int64_t> layer_begin_;
  // Rotary families: the cos/sin tables of the full and the sliding layers' thetas.
  std::vector<tensor::RotaryTable> rotary_;
  std::vector<std::size_t> layer_rotary_;  // each layer's table in rotary_
  // DeBERTa: the relative-position table the layers read (relative_.table: rel_norm_ or the
  // parameter itself) and the gradient they add to (rel_grad_); rel_dx_ is its gradient before
  // the norm.
  bool disentangled_ = false;
  RelativeEmbeddings relative_;
  std::vector<float> rel_norm_, rel_mean_, rel_rstd_, rel_grad_, rel_dx_;
  bool uses_bf16_ = false;

  // The last forward's inputs and activations.
  const data::Batch* batch_ = nullptr;
  StepContext context_;
  std::optional<RowDropout> row_dropout_;  // over batch_
  std::int64_t batch_size_ = 0;
  std::int64_t seq_ = 0;
  std::int64_t tokens_ = 0;                 // the tokens the layers compute on
  const std::int32_t* offsets_ = nullptr;   // packed (the batch's or own_offsets_); null padded
  // A padded batch of a family that runs packed rows: the same rows packed (their ids, offsets
  // and row ids, so each row draws the same dropout masks), and each packed token's place in
  // the batch's layout.
  bool unpadded_ = false;
  data::Batch packed_;
  std::vector<std::int32_t> token_index_;
  const data::Batch* layout_ = nullptr;     // the batch, or packed_: what the layers run over
  const std::int32_t* ids_ = nullptr;       // (tokens_) the ids the embeddings read
  std::vector<float> mask_add_;             // (B, T), padded only
  std::vector<std::int32_t> positions_;     // (N): each token's place in its row
  std::vector<float> emb_sum_, emb_out_;    // (N, E): E = embedding_width(), H but for ELECTRA
  std::vector<float> projected_;            // (N, H): ELECTRA's embeddings_project output
  std::vector<float> emb_grad_a_, emb_grad_b_;  // (N, E), when the embeddings are projected
  std::vector<float> emb_mean_, emb_rstd_;  // (N)
  std::vector<LayerCache> layers_;
  LayerScratch scratch_;
  std::vector<float> final_out_, final_mean_, final_rstd_;  // the final norm's (pre-norm families)
  std::vector<float> head_out_, head_grad_;  // unpadded: the output and its gradient in the batch's layout
  std::vector<float> dhidden_a_, dhidden_b_;  // (N, H)
  // The last layer for the first tokens only (pooled_last_layer.hpp), when the head reads no
  // other row: this forward's choice, the layer, and its rows laid out at the tokens (the
  // others 0) for the head, and their gradient gathered back.
  bool pool_last_ = false;
  PooledLastLayer pooled_;
  std::vector<float> pooled_out_, pooled_grad_;
};

}  // namespace shmtrain::model
