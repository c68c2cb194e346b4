#include "shmtrain/task/sentence_embedding/ir_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

namespace shmtrain::task::sentence_embedding {
namespace {

// heapq's entries: (score, corpus id) compared as Python compares the tuples.
struct Entry {
  double score;
  const std::string* id;
  std::int64_t doc;
  bool operator<(const Entry& other) const { return score < other.score || (score == other.score && *id < *other.id); }
};

// heapq._siftdown and heapq._siftup, step for step, so ties land where Python puts them.
void sift_down(std::vector<Entry>& heap, std::size_t start, std::size_t pos) {
  const Entry item = heap[pos];
  while (pos > start) {
    const std::size_t parent = (pos - 1) >> 1;
    if (item < heap[parent]) {
      heap[pos] = heap[parent];
      pos = parent;
      continue;
    }
    break;
  }
  heap[pos] = item;
}

void sift_up(std::vector<Entry>& heap, std::size_t pos) {
  const std::size_t end = heap.size();
  const std::size_t start = pos;
  const Entry item = heap[pos];
  std::size_t child = 2 * pos + 1;
  while (child < end) {
    const std::size_t right = child + 1;
    if (right < end && !(heap[child] < heap[right])) child = right;
    heap[pos] = heap[child];
    pos = child;
    child = 2 * pos + 1;
  }
  heap[pos] = item;
  sift_down(heap, start, pos);
}

double dcg_at_k(const std::vector<int>& relevances, int k) {
  double dcg = 0;
  const std::size_t n = std::min(relevances.size(), static_cast<std::size_t>(k));
  for (std::size_t i = 0; i < n; ++i) dcg += relevances[i] / std::log2(static_cast<double>(i) + 2.0);
  return dcg;
}

double mean(const std::vector<double>& values) {
  return values.empty() ? std::nan("") : std::accumulate(values.begin(), values.end(), 0.0) / values.size();
}

}  // namespace

int IrCutoffs::max_k() const {
  int k = 0;
  for (const auto* list : {&accuracy_at_k, &precision_recall_at_k, &mrr_at_k, &ndcg_at_k, &map_at_k}) {
    for (int v : *list) k = std::max(k, v);
  }
  return k;
}

std::vector<Hit> ranked_hits(const float* scores, const std::vector<std::string>& corpus_ids, int max_k,
                             std::int64_t chunk) {
  const auto n = static_cast<std::int64_t>(corpus_ids.size());
  std::vector<Entry> heap;
  for (std::int64_t start = 0; start < n; start += chunk) {
    const std::int64_t end = std::min(n, start + chunk);
    // torch.topk(chunk's scores, min(max_k, chunk)): the chunk's best, taken in corpus order.
    std::vector<std::int64_t> order(static_cast<std::size_t>(end - start));
    std::iota(order.begin(), order.end(), start);
    const auto take = std::min<std::int64_t>(max_k, end - start);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t x, std::int64_t y) { return scores[x] > scores[y]; });
    order.resize(static_cast<std::size_t>(take));
    std::sort(order.begin(), order.end());
    for (const std::int64_t doc : order) {
      const Entry entry{static_cast<double>(scores[doc]), &corpus_ids[static_cast<std::size_t>(doc)], doc};
      if (static_cast<int>(heap.size()) < max_k) {
        heap.push_back(entry);
        sift_down(heap, 0, heap.size() - 1);
      } else if (!heap.empty() && heap.front() < entry) {
        heap.front() = entry;
        sift_up(heap, 0);
      }
    }
  }
  std::vector<Hit> hits;
  for (const Entry& e : heap) hits.push_back({e.score, e.doc});
  std::stable_sort(hits.begin(), hits.end(), [](const Hit& x, const Hit& y) { return x.score > y.score; });
  return hits;
}

std::map<std::string, double> ir_metrics(const std::vector<std::vector<Hit>>& hits,
                                         const std::vector<std::set<std::int64_t>>& relevant,
                                         const IrCutoffs& cutoffs) {
  std::map<int, double> accuracy, mrr;
  std::map<int, std::vector<double>> precision, recall, ndcg, average_precision;
  for (std::size_t q = 0; q < hits.size(); ++q) {
    const std::vector<Hit>& top = hits[q];
    const std::set<std::int64_t>& rel = relevant[q];
    auto is_relevant = [&](std::size_t rank) { return rel.count(top[rank].doc) > 0; };
    auto upto = [&](int k) { return std::min(top.size(), static_cast<std::size_t>(k)); };
    for (int k : cutoffs.accuracy_at_k) {
      accuracy[k] += 0;
      for (std::size_t r = 0; r < upto(k); ++r) {
        if (is_relevant(r)) {
          accuracy[k] += 1;
          break;
        }
      }
    }
    for (int k : cutoffs.precision_recall_at_k) {
      int correct = 0;
      for (std::size_t r = 0; r < upto(k); ++r) correct += is_relevant(r) ? 1 : 0;
      precision[k].push_back(static_cast<double>(correct) / k);
      recall[k].push_back(static_cast<double>(correct) / static_cast<double>(rel.size()));
    }
    for (int k : cutoffs.mrr_at_k) {
      mrr[k] += 0;
      for (std::size_t r = 0; r < upto(k); ++r) {
        if (is_relevant(r)) {
          mrr[k] += 1.0 / static_cast<double>(r + 1);
          break;
        }
      }
    }
    for (int k : cutoffs.ndcg_at_k) {
      std::vector<int> predicted;
      for (std::size_t r = 0; r < upto(k); ++r) predicted.push_back(is_relevant(r) ? 1 : 0);
      const std::vector<int> ideal(rel.size(), 1);
      ndcg[k].push_back(dcg_at_k(predicted, k) / dcg_at_k(ideal, k));
    }
    for (int k : cutoffs.map_at_k) {
      int correct = 0;
      double sum = 0;
      for (std::size_t r = 0; r < upto(k); ++r) {
        if (!is_relevant(r)) continue;
        ++correct;
        sum += static_cast<double>(correct) / static_cast<double>(r + 1);
      }
      average_precision[k].push_back(sum / static_cast<double>(std::min<std::size_t>(k, rel.size())));
    }
  }
  const double queries = static_cast<double>(hits.size());
  std::map<std::string, double> out;
  for (auto& [k, v] : accuracy) out[fmt::format("accuracy@{}", k)] = v / queries;
  for (auto& [k, v] : precision) out[fmt::format("precision@{}", k)] = mean(v);
  for (auto& [k, v] : recall) out[fmt::format("recall@{}", k)] = mean(v);
  for (auto& [k, v] : mrr) out[fmt::format("mrr@{}", k)] = v / queries;
  for (auto& [k, v] : ndcg) out[fmt::format("ndcg@{}", k)] = mean(v);
  for (auto& [k, v] : average_precision) out[fmt::format("map@{}", k)] = mean(v);
  return out;
}

}  // namespace shmtrain::task::sentence_embedding
