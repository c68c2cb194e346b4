// CoSENTLoss and AnglELoss over embeddings (embedding_loss.hpp).
//   s_i = scale · sim(x_i, y_i); loss = log(1 + sum_{label_i < label_j} exp(s_i - s_j))
//   ds_i = sum_j w_ij - sum_j w_ji with w_ij = exp(s_i - s_j - loss) over the counted pairs.
// pairwise_angle_sim (util/similarity.py), with x = [a, b], y = [c, d] split in halves, is
//   S = sum_k (a_k (c_k - d_k) + b_k (c_k + d_k)) / (|x| |y|), returned as |S|,
// whose gradient is taken here by hand (dS/da_k = (c_k - d_k) / (|x||y|) - S a_k / |x|^2, ...).
#include <algorithm>
#include <cmath>
#include <limits>

#include "shmtrain/common/error.hpp"
#include "shmtrain/model/sentence/embedding_loss.hpp"
#include "shmtrain/model/sentence/normalize.hpp"

namespace shmtrain::model::sentence {
namespace {

double dot(const float* x, const float* y, std::int64_t n) {
  double sum = 0.0;
  for (std::int64_t k = 0; k < n; ++k) sum += static_cast<double>(x[k]) * y[k];
  return sum;
}

// cos(x, y) with both normalised as util.normalize_embeddings does; adds ds × its gradient.
double cosine(const float* x, const float* y, std::int64_t width, float* dx, float* dy, double ds) {
  std::vector<float> unit(static_cast<std::size_t>(2 * width));
  normalize_rows_forward(unit.data(), width, x, width, 1, width);
  normalize_rows_forward(unit.data() + width, width, y, width, 1, width);
  const double s = dot(unit.data(), unit.data() + width, width);
  if (dx != nullptr) {
    std::vector<float> dunit(static_cast<std::size_t>(2 * width));
    for (std::int64_t k = 0; k < width; ++k) {
      dunit[static_cast<std::size_t>(k)] = static_cast<float>(ds * unit[static_cast<std::size_t>(width + k)]);
      dunit[static_cast<std::size_t>(width + k)] = static_cast<float>(ds * unit[static_cast<std::size_t>(k)]);
    }
    normalize_rows_backward_add(dx, width, x, width, dunit.data(), width, 1, width);
    normalize_rows_backward_add(dy, width, y, width, dunit.data() + width, width, 1, width);
  }
  return s;
}

double angle(const float* x, const float* y, std::int64_t width, float* dx, float* dy, double ds) {
  const std::int64_t half = width / 2;
  const float *a = x, *b = x + half, *c = y, *d = y + half;
  double t = 0.0;
  for (std::int64_t k = 0; k < half; ++k) {
    t += static_cast<double>(a[k]) * (c[k] - d[k]) + static_cast<double>(b[k]) * (c[k] + d[k]);
  }
  const double nx = std::sqrt(dot(x, x, width));
  const double ny = std::sqrt(dot(y, y, width));
  const double s = t / (nx * ny);
  if (dx != nullptr) {
    const double g = s > 0 ? ds : s < 0 ? -ds : 0.0;  // d|S| = sign(S) dS, 0 at 0 as torch.abs
    const double inv = 1.0 / (nx * ny);
    const double sx = s / (nx * nx);
    const double sy = s / (ny * ny);
    float *da = dx, *db = dx + half, *dc = dy, *dd = dy + half;
    for (std::int64_t k = 0; k < half; ++k) {
      da[k] += static_cast<float>(g * ((c[k] - d[k]) * inv - sx * a[k]));
      db[k] += static_cast<float>(g * ((c[k] + d[k]) * inv - sx * b[k]));
      dc[k] += static_cast<float>(g * ((a[k] + b[k]) * inv - sy * c[k]));
      dd[k] += static_cast<float>(g * ((b[k] - a[k]) * inv - sy * d[k]));
    }
  }
  return std::abs(s);
}

class ScoredPairLoss final : public EmbeddingLoss {
 public:
  explicit ScoredPairLoss(ScoredPairLayout layout) : layout_(std::move(layout)) {
    if (static_cast<std::int64_t>(layout_.labels.size()) != layout_.pairs) throw Error("CoSENTLoss: one score per pair");
  }

  std::int64_t rows() const override { return 2 * layout_.pairs; }

  double forward_backward(const float* embeddings, std::int64_t width, std::int64_t stride, float* grad,
                          float dloss) const override {
    if (layout_.similarity == PairSimilarity::kAngle && width % 2 != 0) {
      throw InputError("AnglELoss: the embedding's width " + std::to_string(width) +
                       " is odd; the angle similarity splits it into two halves");
    }
    const std::int64_t n = layout_.pairs;
    auto similarity = [&](std::int64_t i, float* dx, float* dy, double ds) {
      const float* x = embeddings + i * stride;
      const float* y = embeddings + (n + i) * stride;
      return layout_.similarity == PairSimilarity::kCosine ? cosine(x, y, width, dx, dy, ds)
                                                           : angle(x, y, width, dx, dy, ds);
    };
    std::vector<double> s(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) s[static_cast<std::size_t>(i)] = layout_.scale * similarity(i, nullptr, nullptr, 0);
    auto counted = [&](std::int64_t i, std::int64_t j) {
      return layout_.labels[static_cast<std::size_t>(i)] < layout_.labels[static_cast<std::size_t>(j)];
    };
    double top = 0.0;  // the appended zero
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        if (counted(i, j)) top = std::max(top, s[static_cast<std::size_t>(i)] - s[static_cast<std::size_t>(j)]);
      }
    }
    double sum = std::exp(-top);
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        if (counted(i, j)) sum += std::exp(s[static_cast<std::size_t>(i)] - s[static_cast<std::size_t>(j)] - top);
      }
    }
    const double loss = top + std::log(sum);
    if (grad == nullptr) return loss;
    std::vector<double> ds(static_cast<std::size_t>(n), 0.0);
    for (std::int64_t i = 0; i < n; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        if (!counted(i, j)) continue;
        const double w = std::exp(s[static_cast<std::size_t>(i)] - s[static_cast<std::size_t>(j)] - loss);
        ds[static_cast<std::size_t>(i)] += w;
        ds[static_cast<std::size_t>(j)] -= w;
      }
    }
    for (std::int64_t i = 0; i < n; ++i) {
      const double d = ds[static_cast<std::size_t>(i)] * layout_.scale * dloss;
      if (d != 0.0) similarity(i, grad + i * stride, grad + (n + i) * stride, d);
    }
    return loss;
  }

 private:
  ScoredPairLayout layout_;
};

}  // namespace

std::unique_ptr<EmbeddingLoss> make_scored_pair_loss(ScoredPairLayout layout) {
  return std::make_unique<ScoredPairLoss>(std::move(layout));
}

}  // namespace shmtrain::model::sentence
