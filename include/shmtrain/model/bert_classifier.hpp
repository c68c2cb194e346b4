#pragma once
// Hugging Face BertForSequenceClassification: embeddings, encoder layers, tanh pooler on
// [CLS], dropout, classifier; cross-entropy loss, or MSE when num_labels == 1. Parameters and
// gradients are views into caller-owned arenas laid out by ParamTable; this class owns only
// the activations of the last forward.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "shmtrain/model/batch.hpp"
#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/encoder_layer.hpp"
#include "shmtrain/model/param_table.hpp"

namespace shmtrain {

// What makes a forward pass reproducible: dropout only when training, its masks a function
// of (seed, rank, step).
struct StepContext {
  bool train = false;
  std::uint64_t seed = 0;
  std::uint64_t rank = 0;
  std::uint64_t step = 0;
};

class BertForSequenceClassification {
 public:
  // REQUIRES: params and grads hold table.count() floats laid out by `table`.
  BertForSequenceClassification(const BertConfig& config, const ParamTable& table, std::span<float> params,
                                std::span<float> grads);

  // Runs the model; returns the mean loss over the batch (NaN when the batch has no labels).
  // REQUIRES: batch.validate(config) passed.
  float forward(const Batch& batch, const StepContext& context);

  // Called during backward with an arena offset: from there to the end of the arena, every
  // gradient is final for this backward (the table orders parameters so that backward finishes
  // them from the end: classifier and pooler, then the layers from the last, then embeddings).
  using GradientsFinal = std::function<void(std::int64_t offset)>;

  // Accumulates d(loss)/d(params) into the gradient arena, scaled by loss_scale (1 / the
  // number of accumulated micro-batches); tells `gradients_final` (when set) as the gradients
  // of each part are done, last with offset 0. REQUIRES: the last forward was a training one
  // with labels.
  void backward(float loss_scale = 1.0f, const GradientsFinal& gradients_final = {});

  // --bf16: the encoder layers' linears and attention products run in bf16, their weights read
  // from `weights16`, a bf16 copy of the parameter arena (same layout) that the caller keeps
  // current. The embeddings, pooler and classifier stay in float. An empty span: float32.
  void set_bf16_weights(std::span<const bf16> weights16);
  bool uses_bf16() const { return uses_bf16_; }

  // (B, num_labels) of the last forward.
  std::span<const float> logits() const { return logits_; }
  const BertConfig& config() const { return config_; }

 private:
  static LayerParams layer_params(const ParamTable& table, std::span<float> arena, std::int64_t layer);
  LayerDropout layer_dropout(std::int64_t layer) const;
  LayerDims dims() const;
  void resize(std::int64_t batch, std::int64_t seq);

  BertConfig config_;
  const ParamTable& table_;
  std::span<float> params_;
  std::span<float> grads_;
  // Each layer's views into the two arenas, resolved from the table once.
  std::vector<LayerParams> layer_weights_;
  std::vector<LayerParams> layer_grads_;
  bool uses_bf16_ = false;

  // The last forward's inputs and activations.
  const Batch* batch_ = nullptr;
  StepContext context_;
  std::int64_t batch_size_ = 0;
  std::int64_t seq_ = 0;
  std::vector<float> mask_add_;                       // (B, T)
  std::vector<float> emb_sum_, emb_out_;              // (B*T, H)
  std::vector<float> emb_mean_, emb_rstd_;            // (B*T)
  std::vector<LayerCache> layers_;
  LayerScratch scratch_;
  std::vector<float> cls_, pooled_pre_, pooled_, pooled_dropped_, dpooled_;  // (B, H)
  std::vector<float> logits_, probs_;                 // (B, L)
  std::vector<float> dhidden_a_, dhidden_b_;          // (B*T, H)
};

}  // namespace shmtrain
