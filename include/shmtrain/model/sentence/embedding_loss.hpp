#pragma once
// The losses of sentence-transformers' losses/ over a step's sentence embeddings, each with its
// backward: the embeddings are rows of one matrix (rows, width) whose layout the loss was
// built with. They see embeddings only, never the model, so the train module feeds them what
// it has (one worker's rows, or its anchors beside every worker's gathered candidates) and
// carries the gradient back through the pooling (and, across workers, the reduce-scatter).
#include <cstdint>
#include <memory>
#include <vector>

namespace shmtrain::model::sentence {

class EmbeddingLoss {
 public:
  virtual ~EmbeddingLoss() = default;
  // The loss over `embeddings` (rows, width), row stride `stride`. When `grad` is not null,
  // adds dloss × d(loss)/d(embeddings) into it (same layout). REQUIRES: rows == rows().
  virtual double forward_backward(const float* embeddings, std::int64_t width, std::int64_t stride, float* grad,
                                  float dloss) const = 0;
  virtual std::int64_t rows() const = 0;
};

// MultipleNegativesRankingLoss (sentence-transformers' losses/MultipleNegativesRankingLoss.py):
// scores = cos_sim(anchors, candidates) × scale, cross-entropy of each anchor's row against its
// label. Rows [0, anchors) are the anchors, rows [anchors, anchors + candidates) the candidates
// (positives, then each negative column; with gather_across_devices every worker's). The loss
// is the sum of the anchors' cross-entropies over `normalizer` (the anchors' count for one
// worker's mean; the global count when the workers' gradients are summed).
struct RankingLayout {
  std::int64_t anchors = 0;
  std::int64_t candidates = 0;
  std::vector<std::int64_t> labels;  // per anchor, an index into the candidates
  double normalizer = 1.0;
  float scale = 20.0f;
};
std::unique_ptr<EmbeddingLoss> make_ranking_loss(RankingLayout layout);

// CoSENTLoss and AnglELoss (losses/CoSENTLoss.py, AnglELoss.py): rows [0, pairs) are the
// first sentences, [pairs, 2 pairs) the second; s_i = scale × sim(first_i, second_i) with
// pairwise_cos_sim (CoSENT) or pairwise_angle_sim (AnglE); the loss is
// log(1 + sum over label_i < label_j of exp(s_i - s_j)).
enum class PairSimilarity { kCosine, kAngle };
struct ScoredPairLayout {
  std::int64_t pairs = 0;
  std::vector<float> labels;  // per pair, its gold score
  float scale = 20.0f;
  PairSimilarity similarity = PairSimilarity::kCosine;
};
std::unique_ptr<EmbeddingLoss> make_scored_pair_loss(ScoredPairLayout layout);

// MatryoshkaLoss (losses/MatryoshkaLoss.py): sum over dims d of weight_d × inner(normalize(
// embeddings[:, :d])), the dims taken largest first. REQUIRES: dims and weights of one length,
// every dim in [1, width] (check_matryoshka_dims says so in words).
std::unique_ptr<EmbeddingLoss> make_matryoshka_loss(std::unique_ptr<EmbeddingLoss> inner, std::vector<std::int64_t> dims,
                                                    std::vector<double> weights);

// Throws InputError naming the option when dims/weights cannot wrap a `width`-wide embedding.
void check_matryoshka_dims(const std::vector<std::int64_t>& dims, const std::vector<double>& weights,
                           std::int64_t width);

}  // namespace shmtrain::model::sentence
