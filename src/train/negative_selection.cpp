// mine-negatives' steps 3 to 5 (train/mine_negatives.hpp): the candidates of the exact search,
// the positives and the filters set to -inf, the ranking cut and the sampling.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "shmtrain/tensor/similarity_topk.hpp"
#include "shmtrain/train/mine_negatives.hpp"

namespace shmtrain::train {
namespace {

constexpr float kMinusInf = -std::numeric_limits<float>::infinity();

}  // namespace

std::int64_t default_range_max(const NegativeSelection& s, std::int64_t max_positives) {
  const bool filtered = s.absolute_margin || s.relative_margin || s.max_score;
  return s.range_min + s.num_negatives * (filtered ? 10 : 1) + max_positives;
}

MinedNegatives select_negatives(const float* queries, std::int64_t n_queries, const float* corpus,
                                std::int64_t n_corpus, std::int64_t dim,
                                const std::vector<std::vector<std::int64_t>>& positives,
                                const NegativeSelection& s) {
  MinedNegatives out;
  std::int64_t max_positives = 0;
  for (const auto& p : positives) max_positives = std::max<std::int64_t>(max_positives, static_cast<std::int64_t>(p.size()));
  // Step 3: the first-stage candidates (torch.topk of range_max + max_positives; at most the corpus).
  const tensor::TopK top = tensor::similarity_topk(queries, n_queries, corpus, n_corpus, dim, s.range_max + max_positives);
  const std::int64_t k = top.k;
  std::vector<float> scores = top.scores;
  out.candidates = n_queries * k;
  for (std::int64_t q = 0; q < n_queries; ++q) {
    const auto& own = positives[static_cast<std::size_t>(q)];
    float smallest = std::numeric_limits<float>::infinity();
    for (const std::int64_t p : own) {  // similarity_pairwise of the unit vectors
      double dot = 0;
      for (std::int64_t c = 0; c < dim; ++c) dot += static_cast<double>(queries[q * dim + c]) * corpus[p * dim + c];
      out.positive_scores.push_back(static_cast<float>(dot));
      smallest = std::min(smallest, out.positive_scores.back());
    }
    float* row = scores.data() + q * k;
    const std::int64_t* rows = top.indices.data() + q * k;
    for (std::int64_t j = 0; j < k; ++j) {
      if (!s.include_positives && std::find(own.begin(), own.end(), rows[j]) != own.end()) row[j] = kMinusInf;
    }
    // Step 4's filters, in the source's order, each counting what it removes.
    const auto remove = [&](std::int64_t& counter, const auto& drop) {
      for (std::int64_t j = 0; j < k; ++j) {
        if (drop(row[j])) {
          ++counter;
          row[j] = kMinusInf;
        }
      }
    };
    if (!own.empty() && s.absolute_margin) {
      const double m = *s.absolute_margin;
      remove(out.skipped_absolute, [&](float x) { return static_cast<double>(x) + m > smallest; });
    }
    if (!own.empty() && s.relative_margin) {
      const double bound = static_cast<double>(smallest) * (1.0 - *s.relative_margin);
      remove(out.skipped_relative, [&](float x) { return static_cast<double>(x) > bound; });
    }
    if (s.max_score) remove(out.skipped_max, [&](float x) { return static_cast<double>(x) > *s.max_score; });
    if (s.min_score) remove(out.skipped_min, [&](float x) { return static_cast<double>(x) < *s.min_score; });
  }
  // Step 5: the top range_max of what is left (a stable sort keeps step 3's order on ties),
  // range_min dropped, num_negatives taken.
  const std::int64_t kept = std::min(s.range_max, k);
  const std::int64_t after_min = std::max<std::int64_t>(0, kept - s.range_min);
  out.width = std::min(s.num_negatives, after_min);
  out.indices.assign(static_cast<std::size_t>(n_queries * out.width), 0);
  out.scores.assign(static_cast<std::size_t>(n_queries * out.width), kMinusInf);
  std::mt19937_64 rng(s.seed);
  std::vector<std::int64_t> order(static_cast<std::size_t>(k));
  for (std::int64_t q = 0; q < n_queries; ++q) {
    const float* row = scores.data() + q * k;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return row[a] > row[b]; });
    std::vector<std::int64_t> slots(order.begin() + s.range_min, order.begin() + s.range_min + after_min);
    if (s.random) {
      // random.sample over the finite candidates (or the first num_negatives slots when fewer).
      std::int64_t options = 0;
      for (const std::int64_t j : slots) options += std::isinf(row[j]) && row[j] < 0 ? 0 : 1;
      options = std::min(std::max(options, s.num_negatives), after_min);
      // Drawn as places in the ranking, put back in its order: best first, ties as ranked.
      std::vector<std::int64_t> places(static_cast<std::size_t>(options));
      std::iota(places.begin(), places.end(), 0);
      for (std::int64_t i = 0; i < out.width; ++i) {
        std::uniform_int_distribution<std::int64_t> pick(i, options - 1);
        std::swap(places[static_cast<std::size_t>(i)], places[static_cast<std::size_t>(pick(rng))]);
      }
      places.resize(static_cast<std::size_t>(out.width));
      std::sort(places.begin(), places.end());
      std::vector<std::int64_t> drawn;
      for (const std::int64_t p : places) drawn.push_back(slots[static_cast<std::size_t>(p)]);
      slots = drawn;
    }
    for (std::int64_t i = 0; i < out.width; ++i) {
      const std::int64_t j = slots[static_cast<std::size_t>(i)];
      out.indices[static_cast<std::size_t>(q * out.width + i)] = top.indices[static_cast<std::size_t>(q * k + j)];
      out.scores[static_cast<std::size_t>(q * out.width + i)] = row[j];
    }
  }
  return out;
}

}  // namespace shmtrain::train
