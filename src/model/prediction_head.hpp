#pragma once
// Internal to model: the dense layer, activation and optional norm between the encoder and a
// classifier, over any (rows, H) block:
//   out = norm(act(x W_d^T + b_d))
// BERT's pooler (tanh, no norm) and RoBERTa's classifier.dense (tanh), DistilBERT's
// pre_classifier (ReLU), and ModernBertPredictionHead (head.dense, GELU, head.norm; no bias when
// classifier_bias is false), which ModernBERT runs on the pooled row and on every token alike.
#include <cstdint>
#include <span>
#include <vector>

#include "architectures/architecture.hpp"
#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"

namespace shmtrain::model {

// The block's modules (their ".weight" and, where the table has one, ".bias") and activation.
struct DenseBlock {
  const char* dense;
  const char* norm;  // nullptr: none
  Activation activation;
};

// The block before config.head's classifier: the family's pooler, or multiple choice's own dense
// layer (architecture.hpp's ChoiceHead: RoBERTa's encoder pooler, ELECTRA's sequence summary).
DenseBlock classifier_block(const BertConfig& config);
// <Family>ForMaskedLM's transform (GELU). REQUIRES: the family has one.
DenseBlock masked_lm_block(const BertConfig& config);

class PredictionHead {
 public:
  PredictionHead(const BertConfig& config, const ParamTable& table, std::span<float> params,
                 std::span<float> grads)
      : PredictionHead(config, classifier_block(config), table, params, grads) {}
  PredictionHead(const BertConfig& config, const DenseBlock& block, const ParamTable& table,
                 std::span<float> params, std::span<float> grads);

  // x (rows, H) -> (rows, H), valid until the next forward. x must stay valid until backward.
  const float* forward(const float* x, std::int64_t rows);
  // dout (rows, H), consumed -> dx (rows, H), overwritten; the parameters' gradients accumulate.
  void backward(float* dx, float* dout);
  // The arena offset of its first parameter.
  std::int64_t first_offset() const { return first_offset_; }

 private:
  std::int64_t hidden_;
  Activation activation_;
  float eps_;
  const float *dense_w_, *dense_b_, *norm_w_, *norm_b_;
  float *d_dense_w_, *d_dense_b_, *d_norm_w_, *d_norm_b_;
  std::int64_t first_offset_;

  const float* x_ = nullptr;
  std::int64_t rows_ = 0;
  std::vector<float> pre_, act_, out_, mean_, rstd_;
};

}  // namespace shmtrain::model
