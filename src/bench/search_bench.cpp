#include "shmtrain/bench/search_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "shmtrain/common/error.hpp"
#include "shmtrain/tensor/gemm.hpp"
#include "shmtrain/tensor/parallel.hpp"
#include "shmtrain/tensor/similarity_topk.hpp"
#include "shmtrain/tensor/threads.hpp"

namespace shmtrain::bench {
namespace {

std::vector<float> unit_rows(std::int64_t rows, std::int64_t dim, std::uint64_t seed) {
  std::vector<float> out(static_cast<std::size_t>(rows * dim));
  tensor::parallel_blocks(rows, 1024, [&](std::int64_t r0, std::int64_t r1) {
    std::mt19937_64 rng(seed + static_cast<std::uint64_t>(r0));
    std::normal_distribution<float> normal;
    for (std::int64_t r = r0; r < r1; ++r) {
      float* row = out.data() + r * dim;
      double norm = 0;
      for (std::int64_t c = 0; c < dim; ++c) {
        row[c] = normal(rng);
        norm += static_cast<double>(row[c]) * row[c];
      }
      for (std::int64_t c = 0; c < dim; ++c) row[c] = static_cast<float>(row[c] / std::sqrt(norm));
    }
  });
  return out;
}

template <typename Fn>
double best_seconds(int runs, const Fn& fn) {
  double best = 1e300;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace

double run_search_bench(const SearchBenchOptions& o) {
  if (o.queries < 1 || o.corpus < 1 || o.dim < 1 || o.k < 1 || o.runs < 1) {
    fail_input("bench search: --queries, --corpus, --dim, --k and --runs must be at least 1");
  }
  tensor::set_compute_threads(tensor::allowed_cpu_count());
  const std::vector<float> queries = unit_rows(o.queries, o.dim, 1);
  const std::vector<float> corpus = unit_rows(o.corpus, o.dim, 1u << 30);
  const double flops = 2.0 * static_cast<double>(o.queries) * static_cast<double>(o.corpus) * static_cast<double>(o.dim);

  // The search's own products, the selection left out: the rate the search can reach.
  const std::int64_t block = tensor::similarity_query_block(o.queries);
  const double products = best_seconds(o.runs, [&] {
    tensor::parallel_blocks(o.queries, block, [&](std::int64_t q0, std::int64_t q1) {
      std::vector<float> scores(static_cast<std::size_t>((q1 - q0) * tensor::kCorpusBlock));
      for (std::int64_t c0 = 0; c0 < o.corpus; c0 += tensor::kCorpusBlock) {
        const std::int64_t cols = std::min(tensor::kCorpusBlock, o.corpus - c0);
        tensor::gemm_serial(tensor::Trans::kNo, tensor::Trans::kYes, q1 - q0, cols, o.dim, 1.0f,
                            queries.data() + q0 * o.dim, o.dim, corpus.data() + c0 * o.dim, o.dim, 0.0f,
                            scores.data(), cols);
      }
    });
  });
  // One large product on every thread (tensor::gemm's blocks): the library's rate at its best.
  const std::int64_t m = std::min<std::int64_t>(o.queries, 4096), n = std::min<std::int64_t>(o.corpus, 4096);
  std::vector<float> c(static_cast<std::size_t>(m * n));
  const double large = best_seconds(o.runs, [&] {
    tensor::gemm(tensor::Trans::kNo, tensor::Trans::kYes, m, n, o.dim, 1.0f, queries.data(), o.dim, corpus.data(),
                 o.dim, 0.0f, c.data(), n);
  });
  const double large_flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(o.dim);
  tensor::TopK top;
  const double search = best_seconds(o.runs, [&] {
    top = tensor::similarity_topk(queries.data(), o.queries, corpus.data(), o.corpus, o.dim, o.k);
  });
  const double search_rate = flops / search / 1e9, product_rate = flops / products / 1e9,
               large_rate = large_flops / large / 1e9;
  fmt::print("search: {} queries x {} corpus rows x {} dims, top {}, {} threads, best of {}\n", o.queries, o.corpus,
             o.dim, o.k, tensor::compute_threads(), o.runs);
  fmt::print("{:<44} {:>10} {:>10}\n", "", "seconds", "GFLOP/s");
  fmt::print("{:<44} {:>10.3f} {:>10.1f}\n", "exact top-k search (similarity_topk)", search, search_rate);
  fmt::print("{:<44} {:>10.3f} {:>10.1f}\n", "its products alone (no selection)", products, product_rate);
  fmt::print("{:<44} {:>10.3f} {:>10.1f}\n", fmt::format("one {}x{}x{} product, all threads", m, n, o.dim), large,
             large_rate);
  const double share = search_rate / std::max(product_rate, large_rate);
  fmt::print("search / GEMM rate (the faster of the two): {:.2f}\n", share);
  return share;
}

}  // namespace shmtrain::bench
