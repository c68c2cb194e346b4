// MatryoshkaLoss over embeddings (embedding_loss.hpp): each dim's truncated, re-normalised
// embeddings (MatryoshkaLoss.shrink) go through the inner loss; its gradient comes back through
// the normalisation into the first d columns, times the dim's weight.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/model/sentence/embedding_loss.hpp"
#include "shmtrain/model/sentence/normalize.hpp"

namespace shmtrain::model::sentence {
namespace {

class MatryoshkaLoss final : public EmbeddingLoss {
 public:
  MatryoshkaLoss(std::unique_ptr<EmbeddingLoss> inner, std::vector<std::int64_t> dims, std::vector<double> weights)
      : inner_(std::move(inner)) {
    std::vector<std::size_t> order(dims.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    // Largest first, as the loss sorts them (a stable sort keeps equal dims in their order).
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return dims[x] > dims[y]; });
    for (const std::size_t i : order) {
      dims_.push_back(dims[i]);
      weights_.push_back(weights[i]);
    }
  }

  std::int64_t rows() const override { return inner_->rows(); }

  double forward_backward(const float* embeddings, std::int64_t width, std::int64_t stride, float* grad,
                          float dloss) const override {
    const std::int64_t n = rows();
    double loss = 0.0;
    for (std::size_t k = 0; k < dims_.size(); ++k) {
      const std::int64_t d = dims_[k];
      if (d > width) throw InputError(fmt::format("--matryoshka_dims: {} is wider than the embedding ({})", d, width));
      std::vector<float> truncated(static_cast<std::size_t>(n * d));
      normalize_rows_forward(truncated.data(), d, embeddings, stride, n, d);
      std::vector<float> dtruncated;
      if (grad != nullptr) dtruncated.assign(truncated.size(), 0.0f);
      const float weight = static_cast<float>(weights_[k]);
      loss += weights_[k] * inner_->forward_backward(truncated.data(), d, d,
                                                     grad != nullptr ? dtruncated.data() : nullptr, dloss * weight);
      if (grad != nullptr) normalize_rows_backward_add(grad, stride, embeddings, stride, dtruncated.data(), d, n, d);
    }
    return loss;
  }

 private:
  std::unique_ptr<EmbeddingLoss> inner_;
  std::vector<std::int64_t> dims_;
  std::vector<double> weights_;
};

}  // namespace

void check_matryoshka_dims(const std::vector<std::int64_t>& dims, const std::vector<double>& weights,
                           std::int64_t width) {
  if (dims.empty()) throw InputError("--matryoshka_dims: give at least one dimension");
  for (const std::int64_t d : dims) {
    if (d <= 0) throw InputError(fmt::format("--matryoshka_dims: {} is not a positive dimension", d));
    if (d > width) {
      throw InputError(fmt::format("--matryoshka_dims: {} is larger than the model's embedding dimension {}", d, width));
    }
  }
  if (!weights.empty() && weights.size() != dims.size()) {
    throw InputError(fmt::format("--matryoshka_weights: {} weights for {} dimensions; give one per dimension",
                                 weights.size(), dims.size()));
  }
}

std::unique_ptr<EmbeddingLoss> make_matryoshka_loss(std::unique_ptr<EmbeddingLoss> inner, std::vector<std::int64_t> dims,
                                                    std::vector<double> weights) {
  if (weights.empty()) weights.assign(dims.size(), 1.0);
  if (weights.size() != dims.size()) throw Error("MatryoshkaLoss: one weight per dim");
  return std::make_unique<MatryoshkaLoss>(std::move(inner), std::move(dims), std::move(weights));
}

}  // namespace shmtrain::model::sentence
