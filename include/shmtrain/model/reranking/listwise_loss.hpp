#pragma once
// The listwise losses of sentence-transformers' cross_encoder/losses/ over a batch of lists: each
// query's candidates are consecutive scores (one logit per (query, document) row), list l being
// lengths[l] of them, with a label per candidate. Each loss comes as a sum over the batch and its
// gradient; the head divides by the normaliser the losses use (ListNet: the lists; LambdaLoss:
// the pairs lambda_pair_count counts), which train sums over a step's micro-batches and workers
// so that P workers train the model one worker trains on the whole global batch.
#include <cstdint>
#include <span>
#include <string>

namespace shmtrain::model::reranking {

// LambdaLoss's weighting_scheme (LambdaLoss.py): NoWeightingScheme, NDCGLoss1Scheme,
// NDCGLoss2Scheme, LambdaRankScheme, NDCGLoss2PPScheme (the default, mu = 10).
enum class LambdaWeighting { kNone, kNdcgLoss1, kNdcgLoss2, kLambdaRank, kNdcgLoss2PP };

// "none", "ndcg_loss1", "ndcg_loss2", "lambda_rank", "ndcg_loss2pp" and back; InputError naming
// `key` and the names for anything else.
const char* lambda_weighting_name(LambdaWeighting weighting);
LambdaWeighting parse_lambda_weighting(const std::string& value, const std::string& key);

struct LambdaLossOptions {
  LambdaWeighting weighting = LambdaWeighting::kNdcgLoss2PP;
  double mu = 10.0;      // NDCGLoss2PPScheme's weight on NDCGLoss2
  double sigma = 1.0;    // the score difference's factor in the sigmoid
  double eps = 1e-10;    // the clamps' floor
  bool binary_log = true;  // reduction_log "binary" (log2), else "natural"
};

// LambdaLoss.forward with k None: within each list, the candidates sorted by score (best first;
// equal scores keep their order), gains (2^label - 1) / maxDCG with labels clamped at 0, the
// discount log2(1 + position), the scheme's weight per pair, and for each pair (i, j) with
// label_i > label_j (every pair, the diagonal included, for NDCGLoss1)
//   -log2(max(max(sigmoid(sigma (s_i - s_j)), eps)^w_ij, eps)),
// the score difference clamped to +-1e8. Returns the sum over the batch's pairs; writes
// d(sum)/d(scores) into dscores (every element) when it is not null.
double lambda_loss_sum(std::span<const float> scores, std::span<const float> labels,
                       std::span<const std::int32_t> lengths, const LambdaLossOptions& options, float* dscores);

// The pairs lambda_loss_sum sums over: a function of the labels alone (k is None).
std::int64_t lambda_pair_count(std::span<const float> labels, std::span<const std::int32_t> lengths,
                               LambdaWeighting weighting);

// ListNetLoss.forward: per list, the cross-entropy of the scores' softmax against the labels'
// softmax, -sum_j softmax(labels)_j log softmax(scores)_j. Returns the sum over the lists;
// writes d(sum)/d(scores) (softmax(scores) - softmax(labels)) when dscores is not null.
double listnet_loss_sum(std::span<const float> scores, std::span<const float> labels,
                        std::span<const std::int32_t> lengths, float* dscores);

// The cross-encoder MultipleNegativesRankingLoss's cross-entropy (cross_encoder/losses/
// MultipleNegativesRankingLoss.py, its activation Sigmoid): per list, z = scale x sigmoid(scores),
// -log softmax(z)[0], the list's first candidate its positive. Returns the sum over the lists;
// writes d(sum)/d(scores) when dscores is not null.
double multiple_negatives_loss_sum(std::span<const float> scores, std::span<const std::int32_t> lengths, double scale,
                                   float* dscores);

}  // namespace shmtrain::model::reranking
