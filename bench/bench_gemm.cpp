// GEMM backends on the BERT shapes, one thread: OpenBLAS sgemm, oneDNN fp32 matmul and oneDNN
// bf16 matmul (fp32 accumulation), GFLOP/s medians, with the backend gemm() picks for fp32
// (GemmBackend::kAuto) and the ratios. The numbers behind the rule in tensor/gemm.cpp and the
// bf16 speed-up --bf16 can get at most from its GEMMs.
//
//   build/bench/bench_gemm [--tokens 2048]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "median_seconds.hpp"
#include "shmtrain/tensor/blas_runtime.hpp"
#include "shmtrain/tensor/cpu_features.hpp"
#include "shmtrain/tensor/gemm.hpp"
#include "shmtrain/tensor/gemm_bf16.hpp"
#include "shmtrain/tensor/threads.hpp"

namespace {

using shmtrain::tensor::Trans;

struct Shape {
  std::string what;
  Trans ta, tb;
  std::int64_t m, n, k;
};

// Median GFLOP/s of 3 timings, each repeating `run` for at least 0.2 s.
double gflops(const Shape& s, const std::function<void()>& run) {
  return 2.0 * static_cast<double>(s.m * s.n * s.k) / shmtrain::bench_timing::median_seconds(run, 0.2) * 1e-9;
}

const char* name(shmtrain::tensor::GemmBackend b) {
  return b == shmtrain::tensor::GemmBackend::kOneDnn ? "oneDNN" : "OpenBLAS";
}

}  // namespace

int main(int argc, char** argv) {
  shmtrain::tensor::prepare_openblas(argv);
  std::int64_t tokens = 2048;  // one worker's batch 16 x seq 128
  for (int a = 1; a + 1 < argc; a += 2) {
    if (std::strcmp(argv[a], "--tokens") == 0) tokens = std::atoll(argv[a + 1]);
  }
  shmtrain::tensor::set_compute_threads(1);
  const bool bf16 = shmtrain::tensor::cpu_features().bf16_native();
  const std::vector<Shape> shapes = {
      {"base qkv = x W^T", Trans::kNo, Trans::kYes, tokens, 2304, 768},
      {"base out = g W^T", Trans::kNo, Trans::kYes, tokens, 768, 3072},
      {"base dx = dy W", Trans::kNo, Trans::kNo, tokens, 768, 3072},
      {"base dW = dy^T x", Trans::kYes, Trans::kNo, 3072, 768, tokens},
      {"base block 64 rows", Trans::kNo, Trans::kYes, 64, 3072, 768},
      {"base block 256 rows", Trans::kNo, Trans::kYes, 256, 3072, 768},
      {"base block 512 rows", Trans::kNo, Trans::kYes, 512, 3072, 768},
      {"attn S = Q K^T", Trans::kNo, Trans::kYes, 128, 128, 64},
      {"attn ctx = P V", Trans::kNo, Trans::kNo, 128, 64, 128},
      {"attn dK = dS^T Q", Trans::kYes, Trans::kNo, 128, 64, 128},
      {"mini inter = x W^T", Trans::kNo, Trans::kYes, tokens, 1024, 256},
      {"mini block 64 rows", Trans::kNo, Trans::kYes, 64, 1024, 256},
      {"mini dW = dy^T x", Trans::kYes, Trans::kNo, 1024, 256, tokens},
  };
  fmt::print("# one thread, {}; GFLOP/s medians; tokens {}\n", shmtrain::tensor::blas_startup_line(), tokens);
  fmt::print("{:<20} {:>5} {:>5} {:>5} {:>9} {:>9} {:>9} {:>10} {:>9} {:>9}\n", "product", "M", "N", "K",
             "OpenBLAS", "oneDNN", "dnn/blas", "fp32 auto", "bf16", "bf16/best");
  for (const Shape& s : shapes) {
    const std::int64_t lda = s.ta == Trans::kNo ? s.k : s.m;
    const std::int64_t ldb = s.tb == Trans::kNo ? s.n : s.k;
    std::vector<float> a(static_cast<std::size_t>(s.m * s.k), 0.5f), b(static_cast<std::size_t>(s.k * s.n), 0.25f),
        c(static_cast<std::size_t>(s.m * s.n));
    std::vector<shmtrain::tensor::bf16> a16(a.size(), shmtrain::tensor::to_bf16(0.5f)),
        b16(b.size(), shmtrain::tensor::to_bf16(0.25f));
    auto on = [&](shmtrain::tensor::GemmBackend backend) {
      return gflops(s, [&] {
        shmtrain::tensor::gemm_serial_on(backend, s.ta, s.tb, s.m, s.n, s.k, 1.0f, a.data(), lda, b.data(),
                                         ldb, 0.0f, c.data(), s.n);
      });
    };
    const double blas = on(shmtrain::tensor::GemmBackend::kOpenBlas);
    const double dnn = on(shmtrain::tensor::GemmBackend::kOneDnn);
    const double half =
        bf16 ? gflops(s,
                      [&] {
                        shmtrain::tensor::gemm_bf16_serial(s.ta, s.tb, s.m, s.n, s.k, 1.0f, a16.data(), lda,
                                                           b16.data(), ldb, 0.0f, c.data(), s.n);
                      })
             : 0.0;
    if (c[0] != 0.125f * static_cast<float>(s.k)) {
      std::fprintf(stderr, "%s: wrong result %g\n", s.what.c_str(), static_cast<double>(c[0]));
      return 1;
    }
    fmt::print("{:<20} {:>5} {:>5} {:>5} {:>9.1f} {:>9.1f} {:>8.2f}x {:>10} {:>9.1f} {:>8.2f}x\n", s.what,
               s.m, s.n, s.k, blas, dnn, dnn / blas, name(shmtrain::tensor::gemm_backend_for(s.m, s.n, s.k)),
               half, half / std::max(blas, dnn));
  }
  return 0;
}
