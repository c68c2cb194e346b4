// Attention on long rows, ModernBERT-base's heads (12 x 64): the tiled kernel
// (tensor/flash_attention), global and with a local layer's window (64 each side), against the
// kernel that stores each (L, L) probability matrix (tensor/attention) where that fits, and
// against the machine's sgemm rate on the tile products (64 x 64 x 64, one thread per thread of
// the run). Rates count the products attention needs, forward (Q K^T, P V) and backward (dP, dV,
// dQ, dK): 6 x 2 x L x keys x 64 per head, keys = L (global) or at most 129 (local); the tiled
// backward recomputes Q K^T twice and dP once more, which the rate does not count.
//
//   build/bench/bench_attention [--threads N] [--lengths 512,2048,8192]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include "median_seconds.hpp"
#include "shmtrain/tensor/attention.hpp"
#include "shmtrain/tensor/blas_runtime.hpp"
#include "shmtrain/tensor/flash_attention.hpp"
#include "shmtrain/tensor/gemm.hpp"
#include "shmtrain/tensor/threads.hpp"

namespace {

using namespace shmtrain::tensor;

constexpr std::int64_t kHeads = 12;
constexpr std::int64_t kHeadDim = 64;
constexpr std::int64_t kWindow = 64;

double seconds(const std::function<void()>& run) { return shmtrain::bench_timing::median_seconds(run, 0.3); }

// The keys a row sees on average: all L, or the window's (fewer at the row's ends).
double mean_keys(std::int64_t length, std::int64_t window) {
  if (window < 0) return static_cast<double>(length);
  double sum = 0;
  for (std::int64_t i = 0; i < length; ++i) {
    sum += static_cast<double>(std::min(length - 1, i + window) - std::max<std::int64_t>(0, i - window) + 1);
  }
  return sum / static_cast<double>(length);
}

double needed_flops(std::int64_t length, std::int64_t window) {
  return 6.0 * 2.0 * static_cast<double>(length) * mean_keys(length, window) * kHeadDim * kHeads;
}

// sgemm on 64 x 64 x 64 tiles, one independent product per thread, in GFLOP/s for the run.
double tile_sgemm_rate(int threads) {
  const std::int64_t n = 64;
  std::vector<std::vector<float>> a(static_cast<std::size_t>(threads), std::vector<float>(n * n, 0.5f));
  std::vector<std::vector<float>> c(a.size(), std::vector<float>(n * n, 0.0f));
  const double t = seconds([&] {
    tbb::parallel_for(0, threads, [&](int i) {
      for (int rep = 0; rep < 64; ++rep) {
        gemm_serial(Trans::kNo, Trans::kYes, n, n, n, 1.0f, a[static_cast<std::size_t>(i)].data(), n,
                    a[static_cast<std::size_t>(i)].data(), n, 0.0f, c[static_cast<std::size_t>(i)].data(), n);
      }
    });
  });
  return 64.0 * threads * 2.0 * n * n * n / t * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  prepare_openblas(argv);
  int threads = allowed_cpu_count();
  std::vector<std::int64_t> lengths = {512, 2048, 8192};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--threads") == 0) threads = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--lengths") == 0) {
      lengths.clear();
      for (const char* p = argv[i + 1]; *p != '\0';) {
        lengths.push_back(std::strtoll(p, const_cast<char**>(&p), 10));
        if (*p == ',') ++p;
      }
    }
  }
  set_compute_threads(threads);
  const double limit = tile_sgemm_rate(threads);
  fmt::print("attention, {} heads x {}, {} threads; sgemm on 64x64x64 tiles: {:.1f} GFLOP/s\n", kHeads, kHeadDim,
             threads, limit);
  fmt::print("{:>6} {:>22} {:>9} {:>9} {:>9} {:>12}\n", "L", "kernel", "fwd ms", "bwd ms", "GFLOP/s", "x tile sgemm");
  for (const std::int64_t length : lengths) {
    const std::int32_t offsets[2] = {0, static_cast<std::int32_t>(length)};
    const std::int64_t hidden = kHeads * kHeadDim;
    std::vector<float> qkv(static_cast<std::size_t>(length * 3 * hidden));
    for (std::size_t i = 0; i < qkv.size(); ++i) qkv[i] = static_cast<float>((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
    std::vector<float> out(static_cast<std::size_t>(length * hidden)), dout(out.size(), 0.01f);
    std::vector<float> dqkv(qkv.size()), lse(static_cast<std::size_t>(length * kHeads));
    for (const std::int64_t window : {std::int64_t{-1}, kWindow}) {
      const FlashAttentionShape shape{1, kHeads, kHeadDim, offsets, window};
      const double fwd = seconds([&] { flash_attention_forward(out.data(), lse.data(), qkv.data(), shape); });
      const double bwd = seconds(
          [&] { flash_attention_backward(dqkv.data(), dout.data(), qkv.data(), out.data(), lse.data(), shape); });
      const double rate = needed_flops(length, window) / (fwd + bwd) * 1e-9;
      fmt::print("{:>6} {:>22} {:>9.2f} {:>9.2f} {:>9.1f} {:>12.2f}\n", length,
                 window < 0 ? "tiled, global" : "tiled, window 64", fwd * 1e3, bwd * 1e3, rate, rate / limit);
    }
    // The (L, L) probabilities of every head: 12 x 2048^2 floats = 200 MB; 8192 would be 3.2 GB.
    if (length <= 2048) {
      const AttentionShape shape{1, length, kHeads, kHeadDim, offsets};
      std::vector<float> probs(static_cast<std::size_t>(attention_probs_floats(shape)));
      const double fwd = seconds(
          [&] { attention_forward(out.data(), probs.data(), qkv.data(), nullptr, shape, {}, nullptr); });
      const double bwd = seconds(
          [&] { attention_backward(dqkv.data(), dout.data(), qkv.data(), probs.data(), shape, {}, nullptr); });
      const double rate = needed_flops(length, -1) / (fwd + bwd) * 1e-9;
      fmt::print("{:>6} {:>22} {:>9.2f} {:>9.2f} {:>9.1f} {:>12.2f}\n", length, "stored probabilities", fwd * 1e3,
                 bwd * 1e3, rate, rate / limit);
    }
  }
  return 0;
}
