#pragma once
// Losses of the classification heads, as torch.nn.functional: cross_entropy (classification),
// mse_loss (regression, num_labels == 1) and binary_cross_entropy_with_logits (a reranker's one
// score per pair, sentence-transformers' BinaryCrossEntropyLoss), each the mean over the batch.
#include <cstdint>

namespace shmtrain::tensor {

// logits (B, L), labels (B) in [0, L): returns mean_b -log softmax(logits_b)[label_b];
// probs (B, L) caches the softmax for backward.
float cross_entropy_forward(float* probs, const float* logits, const std::int32_t* labels, std::int64_t batch,
                            std::int64_t num_labels);

// dlogits (B, L) = (probs - onehot(labels)) * dloss / B.
void cross_entropy_backward(float* dlogits, const float* probs, const std::int32_t* labels, std::int64_t batch,
                            std::int64_t num_labels, float dloss);

// pred (B), target (B): returns mean_b (pred_b - target_b)^2.
float mse_forward(const float* pred, const float* target, std::int64_t batch);

// dpred (B) = 2 (pred - target) * dloss / B.
void mse_backward(float* dpred, const float* pred, const float* target, std::int64_t batch, float dloss);

// logits (B), target (B) in [0, 1]: returns mean_b of BCEWithLogitsLoss(pos_weight), as torch
// computes it: (1 - y) x + (1 + (pos_weight - 1) y) (log1p(exp(-|x|)) + max(-x, 0)).
float bce_with_logits_forward(const float* logits, const float* target, std::int64_t batch, float pos_weight);

// dlogits (B) = ((1 - y) - (1 + (pos_weight - 1) y) sigmoid(-x)) * dloss / B.
void bce_with_logits_backward(float* dlogits, const float* logits, const float* target, std::int64_t batch,
                              float pos_weight, float dloss);

}  // namespace shmtrain::tensor
