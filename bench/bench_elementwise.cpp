// The element-wise kernels of a BERT-base step at their step sizes (batch 32 x seq 128), as
// effective memory bandwidth beside memcpy's measured in the same run: the bytes each kernel
// must read and write, over its median time. A kernel well under memcpy's rate is compute- or
// latency-bound and worth a look (the GELU backward was at 0.4x before its prefetch).
// Each result is checked against the scalar formula on a sample of elements.
//
//   build/bench/bench_elementwise [--threads N]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "shmtrain/model/bert_config.hpp"
#include "shmtrain/model/param_table.hpp"
#include "shmtrain/optim/adamw.hpp"
#include "shmtrain/train/optimizer_slots.hpp"
#include "shmtrain/optim/clip.hpp"
#include "shmtrain/tensor/allocator.hpp"
#include "shmtrain/tensor/bf16.hpp"
#include "shmtrain/tensor/dropout.hpp"
#include "shmtrain/tensor/gelu.hpp"
#include "shmtrain/tensor/layernorm.hpp"
#include "shmtrain/tensor/parallel.hpp"
#include "shmtrain/tensor/softmax.hpp"
#include "shmtrain/tensor/threads.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Median seconds of 7 runs after one warm-up.
double median_seconds(const std::function<void()>& run) {
  run();
  std::vector<double> times;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = Clock::now();
    run();
    times.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  return times[3];
}

int failures = 0;

void check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "verification failed: %s\n", what.c_str());
    ++failures;
  }
}

bool near(double a, double b, double tol) { return std::abs(a - b) <= tol * (1.0 + std::abs(b)); }

float gelu(float x) { return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f))); }

float gelu_grad(float x) {
  return 0.5f * (1.0f + std::erf(x / std::sqrt(2.0f))) + x * std::exp(-0.5f * x * x) / std::sqrt(2.0f * 3.14159265f);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 0;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (std::strcmp(argv[a], "--threads") == 0) threads = std::atoi(argv[a + 1]);
  }
  if (threads > 0) shmtrain::tensor::set_compute_threads(threads);
  const std::int64_t tokens = 32 * 128, hidden = 768, inter = 3072, heads = 12, seq = 128;
  const std::int64_t n_inter = tokens * inter, n_hidden = tokens * hidden;

  std::vector<float> a(static_cast<std::size_t>(n_inter)), b(a.size()), c(a.size());
  std::vector<shmtrain::tensor::bf16> h(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>(i % 1013) * 0.006f - 3.0f;
    b[i] = static_cast<float>(i % 17) * 0.01f - 0.08f;
  }
  // The limit: a copy over the same compute threads, in the kernels' block size.
  const double memcpy_s = median_seconds([&] {
    shmtrain::tensor::parallel_blocks(n_inter, 16384, [&](std::int64_t i0, std::int64_t i1) {
      std::memcpy(c.data() + i0, a.data() + i0, static_cast<std::size_t>(i1 - i0) * sizeof(float));
    });
  });
  const double memcpy_rate = 2.0 * static_cast<double>(n_inter) * 4 / memcpy_s * 1e-9;
  fmt::print(
      "# BERT-base step sizes, {} compute threads; parallel memcpy {:.1f} GB/s (read + write) in this run\n",
      shmtrain::tensor::compute_threads(), memcpy_rate);
  fmt::print("{:<40} {:>10} {:>9} {:>8} {:>10}\n", "kernel", "elements", "ms", "GB/s", "vs memcpy");
  auto row = [&](const std::string& what, std::int64_t elements, double bytes, double seconds) {
    const double rate = bytes / seconds * 1e-9;
    fmt::print("{:<40} {:>10} {:>9.2f} {:>8.1f} {:>9.2f}x\n", what, elements, seconds * 1e3, rate, rate / memcpy_rate);
  };

  // GELU on the intermediate activations: float in, bf16 out (--bf16).
  row("gelu forward, bf16 out", n_inter, 6.0 * n_inter,
      median_seconds([&] { shmtrain::tensor::gelu_forward(h.data(), a.data(), n_inter); }));
  for (std::int64_t i = 0; i < n_inter; i += 99991) {
    check(near(shmtrain::tensor::to_float(h[i]), gelu(a[i]), 1e-2), fmt::format("gelu forward at {}", i));
  }
  row("gelu backward, bf16 out", n_inter, 10.0 * n_inter,
      median_seconds([&] { shmtrain::tensor::gelu_backward(h.data(), b.data(), a.data(), n_inter); }));
  for (std::int64_t i = 0; i < n_inter; i += 99991) {
    check(near(shmtrain::tensor::to_float(h[i]), b[i] * gelu_grad(a[i]), 1e-2),
          fmt::format("gelu backward at {}", i));
  }

  // Dropout on the attention probabilities (B * heads * T * T) with the mask recorded.
  const std::int64_t n_probs = 32 * heads * seq * seq;
  std::vector<float> probs(static_cast<std::size_t>(n_probs), 0.25f), dropped(probs.size());
  std::vector<std::uint16_t> mask(static_cast<std::size_t>(shmtrain::tensor::dropout_mask_words(n_probs)));
  const shmtrain::tensor::DropoutKey key = shmtrain::tensor::dropout_key(1, 0, 0, 0);
  row("dropout forward, mask recorded", n_probs, 8.0 * n_probs + n_probs / 8.0, median_seconds([&] {
        shmtrain::tensor::dropout_forward(dropped.data(), probs.data(), n_probs, 0.1f, key, 0, mask.data());
      }));
  std::vector<shmtrain::tensor::bf16> dropped16(probs.size());
  row("dropout backward from the mask, bf16", n_probs, 6.0 * n_probs + n_probs / 8.0, median_seconds([&] {
        shmtrain::tensor::dropout_backward(dropped16.data(), probs.data(), n_probs, 0.1f, mask.data());
      }));
  for (std::int64_t i = 0; i < n_probs; i += 77777) {
    const float expected =
        shmtrain::tensor::dropout_keep(key, static_cast<std::uint64_t>(i), 0.1f) ? 0.25f / 0.9f : 0.0f;
    check(near(dropped[i], expected, 1e-6), fmt::format("dropout at {}", i));
    check(near(shmtrain::tensor::to_float(dropped16[i]), expected, 1e-2),
          fmt::format("dropout bf16 at {}", i));
  }

  // Softmax over the attention scores, rows of T.
  row("softmax forward (rows of 128)", n_probs, 8.0 * n_probs, median_seconds([&] {
        shmtrain::tensor::parallel_blocks(n_probs / seq, 256, [&](std::int64_t r0, std::int64_t r1) {
          shmtrain::tensor::softmax_forward(dropped.data() + r0 * seq, a.data() + r0 * seq, nullptr, r1 - r0,
                                            seq);
        });
      }));
  double row_sum = 0;
  for (std::int64_t j = 0; j < seq; ++j) row_sum += dropped[static_cast<std::size_t>(5 * seq + j)];
  check(near(row_sum, 1.0, 1e-5), "softmax row sums to 1");

  // LayerNorm over the hidden states.
  std::vector<float> w(static_cast<std::size_t>(hidden), 1.0f), bias(w.size(), 0.0f), dw(w.size()), db(w.size());
  std::vector<float> mean(static_cast<std::size_t>(tokens)), rstd(mean.size());
  row("layernorm forward", n_hidden, 8.0 * n_hidden, median_seconds([&] {
        shmtrain::tensor::layernorm_forward(c.data(), mean.data(), rstd.data(), a.data(), w.data(),
                                            bias.data(), tokens, hidden, 1e-12f);
      }));
  double m0 = 0;
  for (std::int64_t j = 0; j < hidden; ++j) m0 += a[static_cast<std::size_t>(j)];
  check(near(mean[0], m0 / static_cast<double>(hidden), 1e-5), "layernorm mean");
  row("layernorm backward", n_hidden, 12.0 * n_hidden, median_seconds([&] {
        shmtrain::tensor::layernorm_backward(c.data(), dw.data(), db.data(), b.data(), a.data(), w.data(),
                                             mean.data(), rstd.data(), tokens, hidden);
      }));

  // AdamW over BERT-base's parameters with the bf16 copy (--bf16), and the gradient norm.
  shmtrain::model::BertConfig config;
  const shmtrain::model::ParamTable table = shmtrain::model::ParamTable::for_sequence_classification(config);
  const auto count = static_cast<std::size_t>(table.count());
  shmtrain::tensor::HeapArenaAllocator heap;
  shmtrain::optim::AdamW adamw(shmtrain::train::optimizer_slots(table), {0.9f, 0.999f, 1e-8f, 0.01f}, heap);
  std::vector<float> params(count, 0.02f), grads(count, 1e-3f);
  std::vector<shmtrain::tensor::bf16> params16(count);
  row("gradient norm", static_cast<std::int64_t>(count), 4.0 * static_cast<double>(count),
      median_seconds([&] { check(shmtrain::optim::global_grad_norm(grads) > 0, "gradient norm"); }));
  row("adamw step with bf16 copy", static_cast<std::int64_t>(count), 30.0 * static_cast<double>(count),
      median_seconds([&] { adamw.step(params, grads, 1e-5f, params16, 0.5f); }));
  check(shmtrain::tensor::to_bf16(params[0]).bits == params16[0].bits, "adamw bf16 copy");
  check(params[0] < 0.02f, "adamw moved the parameter against the gradient");

  if (failures > 0) {
    std::fprintf(stderr, "%d verification failure(s)\n", failures);
    return 1;
  }
  return 0;
}
