// MultipleNegativesRankingLoss over embeddings (embedding_loss.hpp).
//   An = normalize(anchors) (A, D), Cn = normalize(candidates) (C, D)
//   S  = scale · An Cn^T (A, C);  loss = sum_i (logsumexp(S_i) - S_i[label_i]) / normalizer
//   G  = (softmax(S) - onehot(labels)) · scale · dloss / normalizer
//   dAn = G Cn, dCn = G^T An, then back through the normalisations.
#include <algorithm>
#include <cmath>

#include "shmtrain/common/error.hpp"
#include "shmtrain/model/sentence/embedding_loss.hpp"
#include "shmtrain/model/sentence/normalize.hpp"
#include "shmtrain/tensor/gemm.hpp"

namespace shmtrain::model::sentence {
namespace {

class RankingLoss final : public EmbeddingLoss {
 public:
  explicit RankingLoss(RankingLayout layout) : layout_(std::move(layout)) {
    if (static_cast<std::int64_t>(layout_.labels.size()) != layout_.anchors) {
      throw Error("MultipleNegativesRankingLoss: one label per anchor");
    }
    for (const std::int64_t label : layout_.labels) {
      if (label < 0 || label >= layout_.candidates) throw Error("MultipleNegativesRankingLoss: a label past the candidates");
    }
  }

  std::int64_t rows() const override { return layout_.anchors + layout_.candidates; }

  double forward_backward(const float* embeddings, std::int64_t width, std::int64_t stride, float* grad,
                          float dloss) const override {
    const std::int64_t a = layout_.anchors;
    const std::int64_t c = layout_.candidates;
    if (a == 0) return 0.0;
    std::vector<float> unit(static_cast<std::size_t>(rows() * width));  // (A + C, D): An then Cn
    normalize_rows_forward(unit.data(), width, embeddings, stride, rows(), width);
    const float* an = unit.data();
    const float* cn = unit.data() + a * width;
    std::vector<float> scores(static_cast<std::size_t>(a * c));  // (A, C)
    tensor::gemm(tensor::Trans::kNo, tensor::Trans::kYes, a, c, width, layout_.scale, an, width, cn, width, 0.0f,
                 scores.data(), c);
    double loss = 0.0;
    for (std::int64_t i = 0; i < a; ++i) {
      float* row = scores.data() + i * c;
      const float top = *std::max_element(row, row + c);
      double sum = 0.0;
      for (std::int64_t j = 0; j < c; ++j) sum += std::exp(static_cast<double>(row[j]) - top);
      const double lse = top + std::log(sum);
      const std::int64_t label = layout_.labels[static_cast<std::size_t>(i)];
      loss += lse - row[label];
      if (grad == nullptr) continue;
      // The row becomes its share of G.
      const double g = static_cast<double>(dloss) * layout_.scale / layout_.normalizer;
      for (std::int64_t j = 0; j < c; ++j) row[j] = static_cast<float>(std::exp(row[j] - lse) * g);
      row[label] -= static_cast<float>(g);
    }
    if (grad != nullptr) {
      std::vector<float> dunit(static_cast<std::size_t>(rows() * width));
      tensor::gemm(tensor::Trans::kNo, tensor::Trans::kNo, a, width, c, 1.0f, scores.data(), c, cn, width, 0.0f,
                   dunit.data(), width);
      tensor::gemm(tensor::Trans::kYes, tensor::Trans::kNo, c, width, a, 1.0f, scores.data(), c, an, width, 0.0f,
                   dunit.data() + a * width, width);
      normalize_rows_backward_add(grad, stride, embeddings, stride, dunit.data(), width, rows(), width);
    }
    return loss / layout_.normalizer;
  }

 private:
  RankingLayout layout_;
};

}  // namespace

std::unique_ptr<EmbeddingLoss> make_ranking_loss(RankingLayout layout) {
  return std::make_unique<RankingLoss>(std::move(layout));
}

}  // namespace shmtrain::model::sentence
