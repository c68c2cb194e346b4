#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include <tbb/parallel_for.h>

#include "shmtrain/bench/allreduce_bench.hpp"

namespace shmtrain::bench {
namespace {

// 64 MiB per array: twice a large L3, so the kernel runs from memory.
constexpr std::size_t kFloats = std::size_t{16} << 20;
constexpr int kRepetitions = 5;

void add_arrays(float* __restrict c, const float* __restrict a, const float* __restrict b, std::size_t n,
                int threads) {
  const std::size_t parts = static_cast<std::size_t>(std::max(threads, 1));
  tbb::parallel_for(std::size_t{0}, parts, [&](std::size_t p) {
    const std::size_t begin = n * p / parts;
    const std::size_t end = n * (p + 1) / parts;
    for (std::size_t i = begin; i < end; ++i) c[i] = a[i] + b[i];
  });
}

}  // namespace

double measure_add_bandwidth(comm::Communicator& communicator, int threads) {
  std::vector<float> a(kFloats, 1.0f);
  std::vector<float> b(kFloats, 2.0f);
  std::vector<float> c(kFloats, 0.0f);
  add_arrays(c.data(), a.data(), b.data(), kFloats, threads);  // warm-up: pages and threads
  std::vector<double> rates;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    communicator.barrier();
    const auto start = std::chrono::steady_clock::now();
    add_arrays(c.data(), a.data(), b.data(), kFloats, threads);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    float slowest = static_cast<float>(took.count());
    communicator.allreduce({&slowest, 1}, comm::ReduceOp::max);
    const double bytes = 3.0 * kFloats * sizeof(float) * communicator.size();
    rates.push_back(bytes / slowest * 1e-9);
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

}  // namespace shmtrain::bench
